import { html, nothing, render, type TemplateResult } from "lit/html.js";
import type { AnhReport, AnhReportPreview } from "../api/compliance-types.ts";
import type { Project } from "../api/types.ts";
import { completenessSoFar, dataQualitySoFar } from "../app/completeness.ts";
import { saveFile } from "../app/download.ts";
import type { PageContext, PageDef, RouteParams } from "../app/page.ts";
import { projectSelect } from "../app/project-select.ts";
import { sectionTabs } from "../app/section-tabs.ts";
import { utcToZoned } from "../i18n/format.ts";
import { type ReportVerification, verifyReport } from "../reports/report-hash.ts";
import { COMPLIANCE, COMPLIANCE_TABS } from "./sections.ts";

const DAY_MS = 86_400_000;
/** Series listed in the gaps table; the rest are counted (a project may poll a thousand). */
const MAX_SERIES_ROWS = 25;

/**
 * A project's daily ANH reports: today's preview, the list with each report's SHA-384, download
 * (the browser hashes the bytes it received and says whether they match), submission, and
 * generation of a closed day (roles with reports:write).
 */
function renderReports(host: HTMLElement, ctx: PageContext, params: RouteParams) {
  const { i18n, formats, api } = ctx;
  const canWrite = ctx.can("reports:write");
  let projects: Project[] = [];
  let project: Project | undefined;
  let reports: AnhReport[] | null = null;
  let preview: AnhReportPreview | "error" | null = null;
  let error: string | null = null;
  let notice: string | null = null;
  let confirming: string | null = null;
  const checks = new Map<string, ReportVerification | "checking">();
  const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
  const zone = () => project?.timezone ?? "UTC";
  const when = (iso: string | null) => (iso ? formats.dateTime(iso, zone()) : "—");
  const yesterday = () => utcToZoned(Date.now() - DAY_MS, zone()).slice(0, 10);

  const loadReports = async () => {
    if (!project) return;
    try {
      reports = await api.get<AnhReport[]>("/api/anh/reports", { project_id: project.id });
    } catch (err) {
      error = message(err);
    }
    update();
  };

  const loadPreview = async () => {
    if (!project) return;
    preview = await api
      .get<AnhReportPreview>("/api/anh/reports/preview", { project_id: project.id })
      .catch(() => "error" as const);
    update();
  };

  const download = async (report: AnhReport) => {
    if (!report.hash_sha384) return;
    checks.set(report.id, "checking");
    update();
    try {
      const file = await api.download(`/api/anh/reports/${report.id}/download`, {}, "application/json");
      checks.set(report.id, await verifyReport(await file.blob.arrayBuffer(), report.hash_sha384));
      saveFile(file.blob, file.filename);
    } catch (err) {
      checks.delete(report.id);
      error = message(err);
    }
    update();
  };

  const submit = async (report: AnhReport) => {
    confirming = null;
    try {
      const updated = await api.post<AnhReport>(`/api/anh/reports/${report.id}/submit`);
      reports = (reports ?? []).map((r) => (r.id === updated.id ? updated : r));
      notice = i18n.t("reports.submitted", { date: updated.report_date });
      error = null;
    } catch (err) {
      error = message(err);
    }
    update();
  };

  const generate = async (e: SubmitEvent) => {
    e.preventDefault();
    if (!project) return;
    const date = String(new FormData(e.target as HTMLFormElement).get("report_date") ?? "");
    try {
      const report = await api.post<AnhReport>("/api/anh/reports/generate", {
        project_id: project.id,
        report_date: date,
      });
      notice = i18n.t("reports.generated", { date: report.report_date, version: report.version });
      error = null;
      await loadReports();
    } catch (err) {
      error = message(err);
      update();
    }
  };

  const previewView = (): TemplateResult => {
    if (preview === null) return html`<p aria-busy="true">${i18n.t("common.loading")}</p>`;
    if (preview === "error") return html`<p>${i18n.t("common.unavailable")}</p>`;
    const c = preview.content;
    const completeness = completenessSoFar(preview);
    return html`<dl class="facts" data-testid="report-preview">
      <dt>${i18n.t("reports.day")}</dt><dd>${preview.report_date}</dd>
      <dt>${i18n.t("reports.asOf")}</dt><dd>${when(preview.as_of)}</dd>
      <dt>${i18n.t("overview.completeness")}</dt>
      <dd data-testid="completeness">${completeness === null ? i18n.t("overview.nothingPolled") : formats.percent(completeness)}</dd>
      <dt>${i18n.t("reports.production")}</dt><dd data-testid="production">${i18n.t("reports.barrels", { value: formats.number(c.movements.totals_bbls.production) })}</dd>
      <dt>${i18n.t("compliance.records")}</dt>
      <dd data-testid="record-counts">${i18n.t("reports.recordCounts", {
        movements: formats.number(c.movements.count),
        downtime: formats.number(c.downtime.count),
        wellTests: formats.number(c.well_tests.count),
        labResults: formats.number(c.lab_results.count),
        meterReadings: formats.number(c.meter_readings.count),
      })}</dd>
      <dt>${i18n.t("reports.hoursLost")}</dt><dd data-testid="hours-lost">${formats.number(c.downtime.total_hours_lost, 2)}</dd>
      <dt>${i18n.t("nav.alarms")}</dt><dd data-testid="alarm-count">${formats.number(c.alarms.count)}</dd>
      ${dataQualityView(preview)}
    </dl>${seriesGapsView(preview)}`;
  };

  // The minutes of the day no series covered, then each series' own: never one sum over series.
  const dataQualityView = (p: AnhReportPreview): TemplateResult => {
    const q = dataQualitySoFar(p);
    const worst = q.series[0];
    return html`<dt>${i18n.t("reports.uncovered")}</dt>
      <dd data-testid="uncovered">${
        q.uncoveredMinutes === null
          ? i18n.t("overview.nothingPolled")
          : i18n.t("reports.uncoveredValue", {
              minutes: formats.number(q.uncoveredMinutes),
              elapsed: formats.number(q.elapsedMinutes),
            })
      }</dd>
      <dt>${i18n.t("reports.seriesGaps")}</dt>
      <dd data-testid="series-gaps">${
        worst === undefined
          ? i18n.t("reports.noGaps")
          : i18n.t("reports.seriesGapsValue", {
              series: formats.number(q.series.length),
              total: formats.number(q.seriesCount),
              gaps: formats.number(q.gapCount),
              minutes: formats.number(worst.minutes),
              asset: worst.assetName,
              variable: worst.variable,
            })
      }</dd>`;
  };

  const seriesGapsView = (p: AnhReportPreview) => {
    const { series } = dataQualitySoFar(p);
    if (series.length === 0) return nothing;
    const shown = series.slice(0, MAX_SERIES_ROWS);
    return html`<details data-testid="series-gaps-table"><summary>${i18n.t("reports.seriesGapsTable")}</summary>
      <div class="table-scroll"><table>
        <thead><tr>
          <th scope="col">${i18n.t("alarms.asset")}</th><th scope="col">${i18n.t("asset.variable")}</th>
          <th scope="col">${i18n.t("reports.gapsColumn")}</th><th scope="col">${i18n.t("reports.minutesColumn")}</th>
        </tr></thead>
        <tbody>${shown.map(
          (s) => html`<tr><td>${s.assetName}</td><td>${s.variable}</td>
            <td class="num">${formats.number(s.gaps)}</td><td class="num">${formats.number(s.minutes)}</td></tr>`,
        )}</tbody>
      </table></div>
      ${
        series.length > shown.length
          ? html`<p class="muted">${i18n.t("reports.moreSeries", { count: formats.number(series.length - shown.length) })}</p>`
          : nothing
      }</details>`;
  };

  const checkView = (report: AnhReport) => {
    const check = checks.get(report.id);
    if (check === undefined) return html`<span class="muted">${i18n.t("reports.notChecked")}</span>`;
    if (check === "checking") return html`<span aria-busy="true">${i18n.t("reports.checking")}</span>`;
    if (check.status === "verified")
      return html`<span class="badge status-online" data-testid="verification">${i18n.t("reports.verified")}</span>`;
    return html`<span class="badge status-offline" data-testid="verification">${i18n.t("reports.mismatch")}</span>
      <div class="muted">${i18n.t("reports.computed")} <code class="hash">${check.computed}</code></div>`;
  };

  const actionsView = (report: AnhReport) => html`${
    report.hash_sha384
      ? html`<button type="button" @click=${() => void download(report)}
          aria-label=${i18n.t("reports.downloadOf", { date: report.report_date, version: report.version })}>${i18n.t("reports.download")}</button>`
      : nothing
  }
    ${
      canWrite && report.status === "generated"
        ? confirming === report.id
          ? html`<button type="button" @click=${() => void submit(report)}>${i18n.t("reports.confirmSubmit")}</button>
            <button type="button" class="link" @click=${() => {
              confirming = null;
              update();
            }}>${i18n.t("common.cancel")}</button>`
          : html`<button type="button" @click=${() => {
              confirming = report.id;
              update();
            }}>${i18n.t("reports.submit")}</button>`
        : nothing
    }`;

  const listView = () => {
    if (reports === null) return html`<p aria-busy="true">${i18n.t("common.loading")}</p>`;
    if (reports.length === 0) return html`<p>${i18n.t("reports.none")}</p>`;
    return html`<div class="table-scroll"><table data-testid="reports">
      <caption class="visually-hidden">${i18n.t("reports.list")}</caption>
      <thead><tr>
        <th scope="col">${i18n.t("reports.day")}</th><th scope="col">${i18n.t("reports.version")}</th>
        <th scope="col">${i18n.t("reports.status")}</th><th scope="col">${i18n.t("reports.generatedAt")}</th>
        <th scope="col">${i18n.t("reports.submittedAt")}</th><th scope="col">${i18n.t("reports.hash")}</th>
        <th scope="col">${i18n.t("reports.check")}</th><th scope="col">${i18n.t("alarms.action")}</th>
      </tr></thead>
      <tbody>${reports.map(
        (r) => html`<tr data-report=${r.id}>
          <td>${r.report_date}</td><td class="num">${r.version}</td>
          <td>${i18n.t(`reportStatus.${r.status}`)}</td>
          <td>${when(r.generated_at)}</td><td>${when(r.submitted_at)}</td>
          <td>${r.hash_sha384 ? html`<code class="hash" data-testid="report-hash">${r.hash_sha384}</code>` : "—"}</td>
          <td>${checkView(r)}</td>
          <td class="actions">${actionsView(r)}</td>
        </tr>`,
      )}</tbody></table></div>`;
  };

  const update = () =>
    render(
      html`<h1>${i18n.t("reports.title")}</h1>
        ${sectionTabs(ctx, "nav.compliance", COMPLIANCE_TABS, COMPLIANCE.reports)}
        ${projectSelect(ctx, projects, project, (id) => `${COMPLIANCE.reports.path}?project=${id}`)}
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${notice ? html`<p class="notice" role="status">${notice}</p>` : nothing}
        ${
          project
            ? html`<section><h2>${i18n.t("reports.today")} · ${project.name}</h2>
                <p class="muted">${i18n.t("reports.provisional")}</p>${previewView()}</section>
              ${
                canWrite
                  ? html`<section><h2>${i18n.t("reports.generate")}</h2>
                    <form class="filters" @submit=${generate}>
                      <label>${i18n.t("reports.day")}<input type="date" name="report_date" required max=${yesterday()} .value=${yesterday()}></label>
                      <button type="submit">${i18n.t("reports.generateButton")}</button>
                    </form></section>`
                  : nothing
              }
              <section><h2>${i18n.t("reports.list")}</h2>
                <p class="muted">${i18n.t("reports.hashHelp")}</p>${listView()}</section>`
            : html`<p>${projects.length === 0 && reports !== null ? i18n.t("overview.noProjects") : i18n.t("common.loading")}</p>`
        }`,
      host,
    );

  update();
  void (async () => {
    try {
      projects = await ctx.projects.list();
      project = projects.find((p) => p.id === params.query.get("project")) ?? projects[0];
      if (!project) reports = [];
    } catch (err) {
      error = message(err);
    }
    update();
    await Promise.all([loadReports(), loadPreview()]);
  })();
  return undefined;
}

export const reportsPage: PageDef = {
  id: "compliance-reports",
  path: COMPLIANCE.reports.path,
  titleKey: "reports.title",
  nav: { labelKey: "nav.compliance" },
  requires: COMPLIANCE.reports.requires,
  render: renderReports,
};
