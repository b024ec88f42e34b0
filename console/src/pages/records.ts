import { html, nothing, render } from "lit/html.js";
import type { Asset, Project } from "../api/types.ts";
import type { PageContext, PageDef, RouteParams } from "../app/page.ts";
import { projectSelect } from "../app/project-select.ts";
import { sectionTabs } from "../app/section-tabs.ts";
import { refusalOf } from "../forms/field-errors.ts";
import { formValues, type RecordRow, recordBody } from "../records/record-body.ts";
import { REASON_FIELD, type RecordFormState, recordForm } from "../records/record-form.ts";
import { RECORD_TYPES, type RecordField, recordType } from "../records/record-types.ts";
import { COMPLIANCE, COMPLIANCE_TABS } from "./sections.ts";

/** The newest records listed; the API's list takes up to 10,000. */
const LIST_LIMIT = 200;

/**
 * Operational records of ANH 0651: an entry form per record type, the list, and corrections.
 * Records are append-only: a correction is a new record that supersedes the old one, with a reason.
 */
function renderRecords(host: HTMLElement, ctx: PageContext, params: RouteParams) {
  const { i18n, formats, api } = ctx;
  const canWrite = ctx.can("records:write");
  const type = recordType(params.query.get("type"));
  let projects: Project[] = [];
  let project: Project | undefined;
  let assets: Asset[] = [];
  let records: RecordRow[] | null = null;
  let error: string | null = null;
  let notice: string | null = null;
  let form: RecordFormState = { type, values: new Map(), correcting: null, errors: new Map(), busy: false };
  const zone = () => project?.timezone ?? "UTC";
  const when = (iso: string) => formats.dateTime(iso, zone());
  const pathFor = (projectId: string | undefined, typeId: string) =>
    `${COMPLIANCE.records.path}?${new URLSearchParams({ ...(projectId ? { project: projectId } : {}), type: typeId })}`;

  const load = async () => {
    if (!project) return;
    try {
      records = await api.get<RecordRow[]>(type.path, { project_id: project.id, limit: LIST_LIMIT });
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    update();
  };

  const cell = (field: RecordField, value: unknown) => {
    if (value === null || value === undefined || value === "") return "—";
    switch (field.kind) {
      case "instant":
        return when(String(value));
      case "number":
        return typeof value === "number" ? formats.number(value) : String(value);
      case "choice": {
        const option = field.options.find((o) => o.value === value);
        return option ? i18n.t(option.labelKey) : String(value);
      }
      case "asset":
        return assets.find((a) => a.id === value)?.name ?? String(value).slice(0, 8);
      case "text":
        return String(value);
    }
  };
  const labelOf = (record: RecordRow) => {
    const instant = record[type.instant];
    return typeof instant === "string" ? when(instant) : record.id.slice(0, 8);
  };

  const save = async (values: Map<string, string>) => {
    if (!project) return;
    const correcting = form.correcting;
    const body = recordBody(type, values, zone(), {
      projectId: project.id,
      ...(correcting ? { supersedes: correcting.id, reason: values.get(REASON_FIELD) ?? "" } : {}),
    });
    form = { ...form, values, busy: true, errors: new Map() };
    update();
    try {
      await api.post(type.path, body);
      form = { type, values: new Map(), correcting: null, errors: new Map(), busy: false };
      notice = i18n.t(correcting ? "records.corrected" : "records.saved");
      error = null;
      await load();
    } catch (err) {
      const { fields, other } = refusalOf(err, [...type.fields.map((f) => f.name), REASON_FIELD]);
      form = { ...form, busy: false, errors: fields };
      error = other.length > 0 ? other.join("; ") : null;
      notice = null;
      update();
    }
  };

  const correct = (record: RecordRow) => {
    form = {
      type,
      values: formValues(type, record, zone()),
      correcting: { id: record.id, label: labelOf(record) },
      errors: new Map(),
      busy: false,
    };
    notice = null;
    update();
    host.querySelector<HTMLElement>(".record-form input, .record-form select")?.focus();
  };

  const statusView = (r: RecordRow) => {
    if (r.superseded_by) return html`<span class="badge">${i18n.t("records.statusCorrected")}</span>`;
    if (r.supersedes)
      return html`<span class="badge status-online">${i18n.t("records.statusCorrection")}</span>
        <div data-testid="correction-reason">${i18n.t("records.reasonIs", { reason: r.correction_reason ?? "" })}</div>`;
    return html`<span class="badge status-online">${i18n.t("records.statusCurrent")}</span>`;
  };

  const listView = () => {
    if (records === null) return html`<p aria-busy="true">${i18n.t("common.loading")}</p>`;
    if (records.length === 0) return html`<p>${i18n.t("records.none")}</p>`;
    return html`<div class="table-scroll"><table data-testid="records">
      <caption class="visually-hidden">${i18n.t(type.labelKey)}</caption>
      <thead><tr>
        ${type.fields.map((f) => html`<th scope="col">${i18n.t(f.labelKey)}</th>`)}
        <th scope="col">${i18n.t("records.entered")}</th><th scope="col">${i18n.t("reports.status")}</th>
        ${canWrite ? html`<th scope="col">${i18n.t("alarms.action")}</th>` : nothing}
      </tr></thead>
      <tbody>${records.map(
        (r) => html`<tr data-record=${r.id} class=${r.superseded_by ? "superseded" : ""}>
          ${type.fields.map((f) => html`<td class=${f.kind === "number" ? "num" : ""}>${cell(f, r[f.name])}</td>`)}
          <td>${when(r.created_at)}</td><td>${statusView(r)}</td>
          ${
            canWrite
              ? html`<td>${
                  r.superseded_by
                    ? nothing
                    : html`<button type="button" @click=${() => correct(r)}
                        aria-label=${i18n.t("records.correctOf", { record: labelOf(r) })}>${i18n.t("records.correct")}</button>`
                }</td>`
              : nothing
          }
        </tr>`,
      )}</tbody></table></div>`;
  };

  const update = () =>
    render(
      html`<h1>${i18n.t("records.title")}</h1>
        ${sectionTabs(ctx, "nav.compliance", COMPLIANCE_TABS, COMPLIANCE.records)}
        ${projectSelect(ctx, projects, project, (id) => pathFor(id, type.id))}
        <div class="segmented record-types" role="group" aria-label=${i18n.t("records.types")}>
          ${RECORD_TYPES.map(
            (t) => html`<button type="button" aria-pressed=${t === type ? "true" : "false"}
              @click=${() => ctx.navigate(pathFor(project?.id, t.id))}>${i18n.t(t.labelKey)}</button>`,
          )}
        </div>
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${notice ? html`<p class="notice" role="status">${notice}</p>` : nothing}
        ${
          project
            ? html`${
                canWrite
                  ? html`<section><h2>${i18n.t(form.correcting ? "records.correctTitle" : "records.newTitle")}</h2>
                    ${recordForm(form, assets, i18n, {
                      submit: (values) => void save(values),
                      // Kept without rendering: the inputs show them already, and a later render
                      // (the list arriving) would otherwise put back what was there before (live()).
                      edit: (values) => {
                        form = { ...form, values };
                      },
                      cancel: () => {
                        form = { type, values: new Map(), correcting: null, errors: new Map(), busy: false };
                        error = null;
                        update();
                      },
                    })}</section>`
                  : nothing
              }
              <section><h2>${i18n.t(type.labelKey)} · ${project.name}</h2>
                <p class="muted">${i18n.t("records.appendOnly")}</p>${listView()}</section>`
            : html`<p>${projects.length === 0 && records !== null ? i18n.t("overview.noProjects") : i18n.t("common.loading")}</p>`
        }`,
      host,
    );

  update();
  void (async () => {
    try {
      projects = await ctx.projects.list();
      project = projects.find((p) => p.id === params.query.get("project")) ?? projects[0];
      if (!project) records = [];
      // Wells and meters to choose from; roles without config:read (anh_reader) see the ids.
      else if (ctx.can("config:read"))
        assets = await api.get<Asset[]>(`/api/edge/projects/${project.id}/assets`).catch(() => []);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    update();
    await load();
  })();
  return undefined;
}

export const recordsPage: PageDef = {
  id: "compliance-records",
  path: COMPLIANCE.records.path,
  titleKey: "records.title",
  navOf: "compliance-reports",
  requires: COMPLIANCE.records.requires,
  render: renderRecords,
};
