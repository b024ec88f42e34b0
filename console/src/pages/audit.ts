import { html, nothing, render } from "lit/html.js";
import { seesAllProjects } from "../../../shared/permissions.ts";
import type { User } from "../api/admin-types.ts";
import type { AuditEntry, AuditVerification } from "../api/compliance-types.ts";
import type { Project } from "../api/types.ts";
import type { PageContext, PageDef } from "../app/page.ts";
import { sectionTabs } from "../app/section-tabs.ts";
import { zonedToUtc } from "../i18n/format.ts";
import type { MessageKey } from "../i18n/i18n.ts";
import { COMPLIANCE, COMPLIANCE_TABS } from "./sections.ts";

const PAGE_SIZE = 100;

type BreakReason = NonNullable<AuditVerification["broken_at"]>["reason"];

const BREAK_REASONS: Record<BreakReason, MessageKey> = {
  "hash mismatch": "audit.reason.hashMismatch",
  "prev_hash mismatch": "audit.reason.prevHashMismatch",
  "seq gap": "audit.reason.seqGap",
  truncated: "audit.reason.truncated",
};

type Filters = { project_id: string; entity: string; from: string; to: string };

/**
 * The audit log (API MPMS 21.1 §5), newest first, filtered and paged backwards; and for the roles
 * that read the whole log, the verification of its hash chain (GET /api/audit/verify).
 */
function renderAudit(host: HTMLElement, ctx: PageContext) {
  const { i18n, formats, api } = ctx;
  const role = ctx.session.state?.role;
  const mayVerify = role !== undefined && seesAllProjects(role);
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  let projects: Project[] = [];
  let users = new Map<string, string>();
  let entries: AuditEntry[] | null = null;
  let more = false;
  let filters: Filters = { project_id: "", entity: "", from: "", to: "" };
  let verification: AuditVerification | "checking" | null = null;
  let error: string | null = null;
  const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

  const query = (beforeSeq?: number) => {
    const instant = (local: string) => (local ? new Date(zonedToUtc(local, zone)).toISOString() : undefined);
    return {
      project_id: filters.project_id || undefined,
      entity: filters.entity.trim() || undefined,
      from: instant(filters.from),
      to: instant(filters.to),
      before_seq: beforeSeq,
      limit: PAGE_SIZE,
    };
  };

  let loads = 0;
  const load = async (older = false) => {
    const oldest = entries?.at(-1)?.seq;
    // Only the newest request's answer is shown: an earlier one (other filters) may arrive last.
    const mine = ++loads;
    try {
      const page = await api.get<AuditEntry[]>("/api/audit", query(older ? oldest : undefined));
      if (mine !== loads) return;
      entries = older ? [...(entries ?? []), ...page] : page;
      more = page.length === PAGE_SIZE;
      error = null;
    } catch (err) {
      error = message(err);
    }
    update();
  };

  const verify = async () => {
    verification = "checking";
    update();
    try {
      verification = await api.get<AuditVerification>("/api/audit/verify");
    } catch (err) {
      verification = null;
      error = message(err);
    }
    update();
  };

  const verificationView = () => {
    if (verification === null) return nothing;
    if (verification === "checking") return html`<p aria-busy="true">${i18n.t("audit.checking")}</p>`;
    const v = verification;
    if (v.valid)
      return html`<p class="notice" role="status" data-testid="audit-verification">
        <span class="badge status-online">${i18n.t("audit.intact")}</span>
        ${i18n.t("audit.intactBody", { entries: formats.number(v.entries) })}
        ${v.head ? html`<br>${i18n.t("audit.head", { seq: v.head.seq })} <code class="hash">${v.head.hash}</code>` : nothing}
      </p>`;
    return html`<p class="notice" role="alert" data-testid="audit-verification">
      <span class="badge status-offline">${i18n.t("audit.broken")}</span>
      ${i18n.t("audit.brokenBody", {
        entries: formats.number(v.entries),
        seq: v.broken_at?.seq ?? "—",
        reason: v.broken_at ? i18n.t(BREAK_REASONS[v.broken_at.reason]) : "—",
      })}
    </p>`;
  };

  const projectName = (id: string | null) =>
    id ? (projects.find((p) => p.id === id)?.name ?? id.slice(0, 8)) : i18n.t("audit.noProject");
  const who = (id: string | null) => (id ? (users.get(id) ?? id.slice(0, 8)) : i18n.t("audit.system"));
  const json = (value: unknown) =>
    value === null || value === undefined ? "—" : JSON.stringify(value, null, 2);

  const listView = () => {
    if (entries === null) return html`<p aria-busy="true">${i18n.t("common.loading")}</p>`;
    if (entries.length === 0) return html`<p>${i18n.t("audit.none")}</p>`;
    return html`<div class="table-scroll"><table data-testid="audit-log">
      <caption class="visually-hidden">${i18n.t("audit.title")}</caption>
      <thead><tr>
        <th scope="col">${i18n.t("audit.seq")}</th><th scope="col">${i18n.t("alarms.at")}</th>
        <th scope="col">${i18n.t("audit.who")}</th><th scope="col">${i18n.t("alarms.project")}</th>
        <th scope="col">${i18n.t("audit.entity")}</th><th scope="col">${i18n.t("audit.action")}</th>
        <th scope="col">${i18n.t("audit.change")}</th>
      </tr></thead>
      <tbody>${entries.map(
        (e) => html`<tr data-seq=${e.seq}>
          <td class="num">${e.seq}</td><td>${formats.dateTime(e.at, zone)}</td>
          <td>${who(e.user_id)}</td><td>${projectName(e.project_id)}</td>
          <td>${e.entity} <span class="muted">${e.entity_id.slice(0, 8)}</span></td>
          <td>${i18n.t(`audit.actionName.${e.action}`)}</td>
          <td><details><summary>${i18n.t("audit.details")}</summary>
            <div class="change"><div><strong>${i18n.t("audit.before")}</strong><pre>${json(e.before)}</pre></div>
            <div><strong>${i18n.t("audit.after")}</strong><pre>${json(e.after)}</pre></div></div>
            <div class="muted">${i18n.t("reports.hash")} <code class="hash">${e.hash}</code></div>
          </details></td>
        </tr>`,
      )}</tbody></table></div>
      ${
        more
          ? html`<button type="button" @click=${() => void load(true)}>${i18n.t("audit.older")}</button>`
          : nothing
      }`;
  };

  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const get = (k: string) => String(form.get(k) ?? "");
    filters = { project_id: get("project_id"), entity: get("entity"), from: get("from"), to: get("to") };
    void load();
  };

  const update = () =>
    render(
      html`<h1>${i18n.t("audit.title")}</h1>
        ${sectionTabs(ctx, "nav.compliance", COMPLIANCE_TABS, COMPLIANCE.audit)}
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${
          mayVerify
            ? html`<section><h2>${i18n.t("audit.verifyTitle")}</h2>
              <p class="muted">${i18n.t("audit.verifyHelp")}</p>
              <button type="button" @click=${() => void verify()} data-testid="audit-verify">${i18n.t("audit.verify")}</button>
              ${verificationView()}</section>`
            : nothing
        }
        <section><h2>${i18n.t("audit.entries")}</h2>
          <form class="filters" @submit=${submit}>
            <label>${i18n.t("alarms.project")}<select name="project_id">
              <option value="">${i18n.t("audit.allProjects")}</option>
              ${projects.map((p) => html`<option value=${p.id} ?selected=${filters.project_id === p.id}>${p.name}</option>`)}
            </select></label>
            <label>${i18n.t("audit.entity")}<input name="entity" maxlength="64" .value=${filters.entity} placeholder="movement"></label>
            <label>${i18n.t("trend.from")}<input type="datetime-local" name="from" .value=${filters.from}></label>
            <label>${i18n.t("trend.to")}<input type="datetime-local" name="to" .value=${filters.to}></label>
            <button type="submit">${i18n.t("alarms.filter")}</button>
          </form>
          <p class="muted">${i18n.t("trend.zone", { zone })}</p>
          ${listView()}
        </section>`,
      host,
    );

  update();
  void (async () => {
    projects = await ctx.projects.list().catch(() => []);
    if (ctx.can("users:manage")) {
      const list = await api.get<User[]>("/api/admin/users").catch(() => []);
      users = new Map(list.map((u) => [u.id, u.email]));
    }
    await load();
  })();
  return undefined;
}

export const auditPage: PageDef = {
  id: "compliance-audit",
  path: COMPLIANCE.audit.path,
  titleKey: "audit.title",
  navOf: "compliance-reports",
  requires: COMPLIANCE.audit.requires,
  render: renderAudit,
};
