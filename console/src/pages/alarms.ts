import { html, nothing, render } from "lit/html.js";
import type { Alarm, AlarmHistoryEntry, AlarmType, Asset, Project, Severity } from "../api/types.ts";
import { alarmText } from "../app/alarm-text.ts";
import { saveFile } from "../app/download.ts";
import type { PageContext, PageDef, RouteParams } from "../app/page.ts";
import { zonedToUtc } from "../i18n/format.ts";

const SEVERITIES: Severity[] = ["critical", "warning", "info"];
const TYPES: AlarmType[] = ["critical_high", "high", "low", "critical_low", "comm_loss"];
const HISTORY_LIMIT = 500;

type Filters = { asset_id: string; severity: string; alarm_type: string; from: string; to: string };

/**
 * A project's active alarms, acknowledged from here by roles that may (POST /api/alarms/{id}/ack),
 * and its alarm history filtered by asset, severity, type and time, exported as CSV.
 */
function renderAlarms(host: HTMLElement, ctx: PageContext, params: RouteParams) {
  const { i18n, formats, api } = ctx;
  let projects: Project[] = [];
  let project: Project | undefined;
  let assets: Asset[] = [];
  let active: Alarm[] | null = null;
  let history: AlarmHistoryEntry[] | null = null;
  let filters: Filters = { asset_id: "", severity: "", alarm_type: "", from: "", to: "" };
  let error: string | null = null;
  const fresh = new Set<string>();
  const canAck = ctx.can("alarms:ack");

  const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
  const assetName = (id: string | null) =>
    id ? (assets.find((a) => a.id === id)?.name ?? id.slice(0, 8)) : "—";
  const when = (iso: string) => formats.dateTime(iso, project?.timezone ?? "UTC");

  const historyQuery = () => {
    const zone = project?.timezone ?? "UTC";
    const instant = (local: string) => (local ? new Date(zonedToUtc(local, zone)).toISOString() : undefined);
    return {
      project_id: project?.id,
      asset_id: filters.asset_id || undefined,
      severity: filters.severity || undefined,
      alarm_type: filters.alarm_type || undefined,
      from: instant(filters.from),
      to: instant(filters.to),
    };
  };

  const loadActive = async () => {
    if (!project) return;
    try {
      active = await api.get<Alarm[]>("/api/alarms", { project_id: project.id });
    } catch (err) {
      error = message(err);
    }
    update();
  };

  const loadHistory = async () => {
    if (!project) return;
    try {
      history = await api.get<AlarmHistoryEntry[]>("/api/alarms/history", {
        ...historyQuery(),
        limit: HISTORY_LIMIT,
      });
      error = null;
    } catch (err) {
      error = message(err);
    }
    update();
  };

  const acknowledge = async (alarm: Alarm) => {
    try {
      const updated = await api.post<Alarm>(`/api/alarms/${alarm.id}/ack`);
      active = (active ?? []).map((a) => (a.id === updated.id ? updated : a));
      fresh.delete(alarm.id);
      update();
      void loadHistory();
    } catch (err) {
      error = message(err);
      update();
    }
  };

  const exportCsv = async () => {
    try {
      const file = await api.download(
        "/api/alarms/history",
        { ...historyQuery(), format: "csv" },
        "text/csv",
      );
      saveFile(file.blob, file.filename);
    } catch (err) {
      error = message(err);
      update();
    }
  };

  const activeView = () => {
    if (active === null) return html`<p aria-busy="true">${i18n.t("common.loading")}</p>`;
    if (active.length === 0)
      return html`<p data-testid="no-active-alarms">${i18n.t("alarms.noneActive")}</p>`;
    return html`<div class="table-scroll"><table class="alarms-table" data-testid="active-alarms">
      <caption class="visually-hidden">${i18n.t("alarms.active")}</caption>
      <thead><tr>
        <th scope="col">${i18n.t("alarms.raisedAt")}</th><th scope="col">${i18n.t("alarms.severity")}</th>
        <th scope="col">${i18n.t("alarms.asset")}</th><th scope="col">${i18n.t("alarms.message")}</th>
        <th scope="col">${i18n.t("alarms.value")}</th><th scope="col">${i18n.t("alarms.state")}</th>
        ${canAck ? html`<th scope="col">${i18n.t("alarms.action")}</th>` : nothing}
      </tr></thead>
      <tbody>${active.map(
        (a) => html`<tr data-alarm=${a.id} class=${fresh.has(a.id) ? "fresh" : ""}>
          <td>${when(a.timestamp)}</td>
          <td><span class="badge severity-${a.severity}">${i18n.t(`severity.${a.severity}`)}</span></td>
          <td>${assetName(a.asset_id)}</td>
          <td>${alarmText(a, i18n, formats)} <span class="muted">(${i18n.t(`alarmType.${a.alarm_type}`)})</span></td>
          <td class="num">${formats.number(a.value)}</td>
          <td>${a.active ? i18n.t("alarms.stateActive") : i18n.t("alarms.stateReturned")}${a.acknowledged ? html` · ${i18n.t("alarms.acknowledged")}` : nothing}</td>
          ${
            canAck
              ? html`<td>${
                  a.acknowledged
                    ? nothing
                    : html`<button type="button" @click=${() => void acknowledge(a)} aria-label=${i18n.t("alarms.ackOf", { message: alarmText(a, i18n, formats) })}>${i18n.t("alarms.ack")}</button>`
                }</td>`
              : nothing
          }
        </tr>`,
      )}</tbody></table></div>`;
  };

  const select = (name: keyof Filters, label: string, options: [string, string][]) =>
    html`<label>${label}<select name=${name} .value=${filters[name]}>
      <option value="">${i18n.t("alarms.any")}</option>
      ${options.map(([v, text]) => html`<option value=${v} ?selected=${filters[name] === v}>${text}</option>`)}
    </select></label>`;

  const historyView = () => html`<form class="filters" @submit=${(e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const get = (k: string) => String(form.get(k) ?? "");
    filters = {
      asset_id: get("asset_id"),
      severity: get("severity"),
      alarm_type: get("alarm_type"),
      from: get("from"),
      to: get("to"),
    };
    void loadHistory();
  }}>
      ${select(
        "asset_id",
        i18n.t("alarms.asset"),
        assets.map((a) => [a.id, a.name]),
      )}
      ${select(
        "severity",
        i18n.t("alarms.severity"),
        SEVERITIES.map((s) => [s, i18n.t(`severity.${s}`)]),
      )}
      ${select(
        "alarm_type",
        i18n.t("alarms.type"),
        TYPES.map((t) => [t, i18n.t(`alarmType.${t}`)]),
      )}
      <label>${i18n.t("trend.from")}<input type="datetime-local" name="from" .value=${filters.from}></label>
      <label>${i18n.t("trend.to")}<input type="datetime-local" name="to" .value=${filters.to}></label>
      <button type="submit">${i18n.t("alarms.filter")}</button>
      <button type="button" @click=${() => void exportCsv()} data-testid="history-csv">${i18n.t("trend.exportCsv")}</button>
    </form>
    ${
      history === null
        ? html`<p aria-busy="true">${i18n.t("common.loading")}</p>`
        : history.length === 0
          ? html`<p>${i18n.t("alarms.noHistory")}</p>`
          : html`<div class="table-scroll"><table data-testid="alarm-history">
            <caption class="visually-hidden">${i18n.t("alarms.history")}</caption>
            <thead><tr><th scope="col">${i18n.t("alarms.at")}</th><th scope="col">${i18n.t("alarms.event")}</th>
              <th scope="col">${i18n.t("alarms.severity")}</th><th scope="col">${i18n.t("alarms.asset")}</th>
              <th scope="col">${i18n.t("alarms.message")}</th><th scope="col">${i18n.t("alarms.value")}</th></tr></thead>
            <tbody>${history.map(
              (h) => html`<tr><td>${when(h.at)}</td><td>${i18n.t(`alarmEvent.${h.event}`)}</td>
                <td>${i18n.t(`severity.${h.severity}`)}</td><td>${assetName(h.asset_id)}</td>
                <td>${alarmText(h, i18n, formats)} <span class="muted">(${i18n.t(`alarmType.${h.alarm_type}`)})</span></td>
                <td class="num">${h.value === null ? "—" : formats.number(h.value)}</td></tr>`,
            )}</tbody></table></div>`
    }`;

  const update = () =>
    render(
      html`<h1>${i18n.t("alarms.title")}</h1>
        ${
          projects.length > 1
            ? html`<label>${i18n.t("alarms.project")}
              <select @change=${(e: Event) => ctx.navigate(`/alarms?project=${(e.target as HTMLSelectElement).value}`)}>
                ${projects.map((p) => html`<option value=${p.id} ?selected=${p === project}>${p.name}</option>`)}
              </select></label>`
            : nothing
        }
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${
          project
            ? html`<section><h2>${i18n.t("alarms.active")} · ${project.name}</h2>${activeView()}</section>
              <section><h2>${i18n.t("alarms.history")}</h2>${historyView()}</section>`
            : html`<p>${projects.length === 0 && active !== null ? i18n.t("overview.noProjects") : i18n.t("common.loading")}</p>`
        }`,
      host,
    );

  const off = ctx.stream.onMessage((m) => {
    if (m.type !== "alarm" || m.alarm.project_id !== project?.id) return;
    if (m.event === "raised") fresh.add(m.alarm.id);
    void loadActive();
    void loadHistory();
  });

  update();
  void (async () => {
    try {
      projects = await ctx.projects.list();
      project = projects.find((p) => p.id === params.query.get("project")) ?? projects[0];
      if (project) assets = await api.get<Asset[]>(`/api/edge/projects/${project.id}/assets`).catch(() => []);
      else active = [];
    } catch (err) {
      error = message(err);
    }
    update();
    await Promise.all([loadActive(), loadHistory()]);
  })();
  return off;
}

export const alarmsPage: PageDef = {
  id: "alarms",
  path: "/alarms",
  titleKey: "alarms.title",
  nav: { labelKey: "nav.alarms" },
  requires: ["projects:read", "alarms:read"],
  render: renderAlarms,
};
