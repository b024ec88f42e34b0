import { html, nothing, render } from "lit/html.js";
import type { BillingSummary, BillingUsage, Invoice } from "../api/admin-types.ts";
import type { Project } from "../api/types.ts";
import type { PageContext, PageDef, RouteParams } from "../app/page.ts";
import { projectSelect } from "../app/project-select.ts";
import { sectionTabs } from "../app/section-tabs.ts";
import { ADMINISTRATION, ADMINISTRATION_TABS } from "./sections.ts";

/**
 * Billing: a project's usage this month and its invoices; for a superadmin, revenue and
 * subscriptions across every project (GET /api/billing/admin/summary).
 */
function renderBilling(host: HTMLElement, ctx: PageContext, params: RouteParams) {
  const { i18n, formats, api } = ctx;
  let projects: Project[] = [];
  let project: Project | undefined;
  let usage: BillingUsage | null = null;
  let invoices: Invoice[] | null = null;
  let summary: BillingSummary | null = null;
  let error: string | null = null;
  const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
  // Billing months are calendar months in UTC (the API's periods): its times are shown in UTC too.
  const when = (iso: string | null) => (iso ? formats.dateTime(iso, "UTC") : "—");

  const summaryView = (s: BillingSummary) => html`<section class="panel" data-testid="billing-summary">
    <h2>${i18n.t("billing.summary")}</h2>
    <dl class="facts">
      <dt>${i18n.t("billing.revenue")}</dt><dd>${formats.usd(s.total_revenue_usd)}</dd>
      <dt>${i18n.t("billing.subscriptions")}</dt><dd>${formats.number(s.active_subscriptions)}</dd>
      <dt>${i18n.t("billing.mrr")}</dt><dd>${formats.usd(s.mrr_usd)}</dd>
    </dl></section>`;

  const usageView = (u: BillingUsage) => html`<dl class="facts" data-testid="billing-usage">
    <dt>${i18n.t("billing.period")}</dt><dd>${when(u.period_start)} – ${when(u.period_end)}</dd>
    <dt>${i18n.t("billing.plan")}</dt><dd>${i18n.t(`plan.${u.plan}`)}</dd>
    <dt>${i18n.t("billing.points")}</dt><dd>${formats.number(u.telemetry_points)}</dd>
    <dt>${i18n.t("billing.devices")}</dt><dd>${formats.number(u.active_devices)}</dd>
    <dt>${i18n.t("billing.estimate")}</dt><dd>${formats.usd(u.estimated_cost_usd)}</dd>
  </dl>`;

  const invoicesView = (list: Invoice[]) =>
    list.length === 0
      ? html`<p>${i18n.t("billing.noInvoices")}</p>`
      : html`<div class="table-scroll"><table data-testid="invoices">
        <caption class="visually-hidden">${i18n.t("billing.invoices")}</caption>
        <thead><tr>
          <th scope="col">${i18n.t("billing.month")}</th><th scope="col">${i18n.t("billing.plan")}</th>
          <th scope="col">${i18n.t("billing.amount")}</th><th scope="col">${i18n.t("reports.status")}</th>
          <th scope="col">${i18n.t("billing.issued")}</th><th scope="col">${i18n.t("billing.paid")}</th>
        </tr></thead>
        <tbody>${list.map(
          (inv) => html`<tr><td>${inv.period}</td><td>${i18n.t(`plan.${inv.plan}`)}</td>
            <td class="num">${formats.usd(inv.amount_usd)}</td><td>${i18n.t(`invoiceStatus.${inv.status}`)}</td>
            <td>${when(inv.issued_at)}</td><td>${when(inv.paid_at)}</td></tr>`,
        )}</tbody></table></div>`;

  const update = () =>
    render(
      html`<h1>${i18n.t("billing.title")}</h1>
        ${sectionTabs(ctx, "nav.administration", ADMINISTRATION_TABS, ADMINISTRATION.billing)}
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${summary ? summaryView(summary) : nothing}
        ${projectSelect(ctx, projects, project, (id) => `${ADMINISTRATION.billing.path}?project=${id}`)}
        ${
          project
            ? html`<p class="muted">${i18n.t("trend.zone", { zone: "UTC" })}</p>
              <section><h2>${i18n.t("billing.usage")} · ${project.name}</h2>
                ${usage ? usageView(usage) : html`<p aria-busy="true">${i18n.t("common.loading")}</p>`}</section>
              <section><h2>${i18n.t("billing.invoices")}</h2>
                ${invoices ? invoicesView(invoices) : html`<p aria-busy="true">${i18n.t("common.loading")}</p>`}</section>`
            : html`<p>${projects.length === 0 && invoices !== null ? i18n.t("overview.noProjects") : i18n.t("common.loading")}</p>`
        }`,
      host,
    );

  update();
  void (async () => {
    try {
      if (ctx.can("billing:admin")) summary = await api.get<BillingSummary>("/api/billing/admin/summary");
      projects = await ctx.projects.list();
      project = projects.find((p) => p.id === params.query.get("project")) ?? projects[0];
      if (project) {
        [usage, invoices] = await Promise.all([
          api.get<BillingUsage>("/api/billing/usage", { project_id: project.id }),
          api.get<Invoice[]>("/api/billing/invoices", { project_id: project.id }),
        ]);
      } else invoices = [];
    } catch (err) {
      error = message(err);
    }
    update();
  })();
  return undefined;
}

export const billingPage: PageDef = {
  id: "admin-billing",
  path: ADMINISTRATION.billing.path,
  titleKey: "billing.title",
  navOf: "admin-users",
  requires: ADMINISTRATION.billing.requires,
  render: renderBilling,
};
