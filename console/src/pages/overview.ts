import { html, nothing, render, type TemplateResult } from "lit/html.js";
import { ApiError } from "../api/api-error.ts";
import type { AgentHealth, Alarm, Project, ReportPreview, Severity } from "../api/types.ts";
import { completenessSoFar } from "../app/completeness.ts";
import type { PageContext, PageDef } from "../app/page.ts";

type Card = {
  project: Project;
  health: AgentHealth | "none" | "error" | null;
  alarms: Alarm[] | null;
  completeness: number | null | "error" | undefined;
};

const SEVERITIES: Severity[] = ["critical", "warning", "info"];
const REFRESH_MS = 30_000;

/** One card per project: agent status and last seen, active alarms by severity, today's completeness. */
function renderOverview(host: HTMLElement, ctx: PageContext) {
  const { i18n, formats, api } = ctx;
  let cards: Card[] | null = null;
  let failure: string | null = null;

  const loadHealth = (p: Project) =>
    api
      .get<AgentHealth>(`/api/edge/agents/${p.id}/health`)
      .catch((err: unknown) =>
        err instanceof ApiError && err.status === 404 ? ("none" as const) : ("error" as const),
      );
  const loadAlarms = (p: Project) => api.get<Alarm[]>("/api/alarms", { project_id: p.id }).catch(() => null);
  const loadCompleteness = (p: Project) =>
    api
      .get<ReportPreview>("/api/anh/reports/preview", { project_id: p.id })
      .then(completenessSoFar, () => "error" as const);

  const load = async () => {
    try {
      const projects = await ctx.projects.list();
      cards = await Promise.all(
        projects.map(async (project) => {
          const [health, alarms, completeness] = await Promise.all([
            loadHealth(project),
            loadAlarms(project),
            loadCompleteness(project),
          ]);
          return { project, health, alarms, completeness };
        }),
      );
      failure = null;
    } catch (err) {
      failure = err instanceof Error ? err.message : String(err);
    }
    update();
  };

  const agentView = (card: Card): TemplateResult => {
    const h = card.health;
    if (h === null) return html`…`;
    if (h === "none") return html`<span class="badge status-offline">${i18n.t("agent.none")}</span>`;
    if (h === "error") return html`<span class="badge">${i18n.t("common.unavailable")}</span>`;
    const seen = Date.parse(h.last_seen);
    return html`<span class="badge status-${h.status}" data-testid="agent-status">${i18n.t(`agent.${h.status}`)}</span>
      <span class="muted" title=${formats.dateTime(seen, card.project.timezone)}>${i18n.t("agent.lastSeen", { age: formats.age(Date.now() - seen) })}</span>`;
  };

  const alarmsView = (card: Card): TemplateResult => {
    if (!card.alarms) return html`<span>${i18n.t("common.unavailable")}</span>`;
    const alarms = card.alarms;
    return html`<ul class="severity-counts">
      ${SEVERITIES.map((s) => {
        const n = alarms.filter((a) => a.severity === s).length;
        return html`<li class="severity-${s} ${n === 0 ? "zero" : ""}"><span class="count" data-testid="alarms-${s}">${formats.number(n)}</span> ${i18n.t(`severity.${s}`)}</li>`;
      })}
    </ul>`;
  };

  const completenessView = (c: Card["completeness"]) =>
    c === undefined
      ? "…"
      : c === "error"
        ? i18n.t("common.unavailable")
        : c === null
          ? i18n.t("overview.nothingPolled")
          : formats.percent(c);

  const update = () =>
    render(
      html`<h1>${i18n.t("overview.title")}</h1>
        ${failure ? html`<p class="error" role="alert">${failure}</p>` : nothing}
        ${
          cards === null
            ? html`<p aria-busy="true">${i18n.t("common.loading")}</p>`
            : cards.length === 0
              ? html`<p>${i18n.t("overview.noProjects")}</p>`
              : html`<div class="cards">
                ${cards.map(
                  (card) => html`<article class="card" data-project=${card.project.id}>
                    <h2><a href="#/projects/${card.project.id}">${card.project.name}</a></h2>
                    ${card.project.location ? html`<p class="muted">${card.project.location}</p>` : nothing}
                    <dl>
                      <dt>${i18n.t("overview.agent")}</dt><dd>${agentView(card)}</dd>
                      <dt>${i18n.t("overview.activeAlarms")}</dt><dd>${alarmsView(card)}
                        <a href="#/alarms?project=${card.project.id}">${i18n.t("overview.seeAlarms")}</a></dd>
                      <dt>${i18n.t("overview.completeness")}</dt><dd data-testid="completeness">${completenessView(card.completeness)}</dd>
                    </dl>
                  </article>`,
                )}
              </div>`
        }`,
      host,
    );

  update();
  void load();
  const timer = setInterval(() => void load(), REFRESH_MS);
  const off = ctx.stream.onMessage((m) => {
    if (m.type !== "alarm" || !cards) return;
    const card = cards.find((c) => c.project.id === m.alarm.project_id);
    if (!card) return;
    void loadAlarms(card.project).then((alarms) => {
      card.alarms = alarms;
      update();
    });
  });
  return () => {
    clearInterval(timer);
    off();
  };
}

export const overviewPage: PageDef = {
  id: "overview",
  path: "/overview",
  titleKey: "overview.title",
  nav: { labelKey: "nav.overview" },
  requires: ["projects:read", "config:read", "alarms:read"],
  render: renderOverview,
};
