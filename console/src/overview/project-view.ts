import { guard } from "lit/directives/guard.js";
import { html, nothing, type TemplateResult } from "lit/html.js";
import type { Alarm, Severity } from "../api/types.ts";
import type { PageContext } from "../app/page.ts";
import { alarmList } from "./alarm-list.ts";
import { assetCard } from "./asset-card.ts";
import { assetState } from "./asset-state.ts";
import type { LiveProject } from "./overview-model.ts";

const SEVERITIES: Severity[] = ["critical", "warning", "info"];

const clocks = new Map<string, Intl.DateTimeFormat>();

/** "08:00" in the project's zone and the page's locale. */
function clockTime(locale: string, timeZone: string, iso: string): string {
  const key = `${locale} ${timeZone}`;
  let f = clocks.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { timeStyle: "short", timeZone });
    clocks.set(key, f);
  }
  return f.format(Date.parse(iso));
}

export type ProjectViewActions = {
  ack(alarm: Alarm): void;
  pending: ReadonlySet<string>;
  /** Whether the asset's card is on screen: cards off screen are left as they are until they return. */
  onScreen(assetId: string): boolean;
  /**
   * This frame only adds cards of a first draw: what is drawn already stays as it was drawn last
   * (a live redraw follows within a second), so each such frame costs only its new cards.
   */
  adding: boolean;
};

/** What each part was last drawn from (lit guard dependencies), kept for frames that only add cards. */
const drawnFrom = new WeakMap<object, unknown[]>();

/** The dependencies to guard a part with: those it was last drawn from in a frame that only adds. */
function depsOf(part: object, fresh: () => unknown[], adding: boolean): unknown[] {
  const last = drawnFrom.get(part);
  if (adding && last) return last;
  const deps = fresh();
  drawnFrom.set(part, deps);
  return deps;
}

/**
 * One project on the overview: its agent, today's figures, its alarms and its first `assetLimit`
 * assets (the page adds the rest a few at a time). A card is drawn again only when it is on
 * screen and its asset, state or shown age changed.
 */
export function projectView(
  ctx: PageContext,
  project: LiveProject,
  now: number,
  actions: ProjectViewActions,
  assetLimit: number,
): TemplateResult {
  const { i18n } = ctx;
  const headingId = `project-${project.project_id}`;
  const top = () => html`<header class="ov-head">
      <h2 id=${headingId}><a href="#/projects/${project.project_id}">${project.name}</a></h2>
      ${project.location ? html`<span class="muted">${project.location}</span>` : nothing}
      ${agentView(ctx, project, now)}
    </header>
    <div class="ov-figures">
      ${productionView(ctx, project)} ${completenessView(ctx, project)} ${alarmCounts(ctx, project)}
    </div>
    <h3>${i18n.t("overview.alarms")}</h3>
    ${alarmList(ctx, project, actions.ack, actions.pending)}`;
  // The top's figures move with the clock (ages) and with alarms and acknowledgements in flight.
  const topDeps = () => [project, project.alarms, [...actions.pending].join(), now];
  return html`<section class="ov-project" data-project=${project.project_id} aria-labelledby=${headingId}>
    ${guard(depsOf(project, topDeps, actions.adding), top)}
    <h3>${i18n.t("overview.assets")}</h3>
    ${
      project.assets.length === 0
        ? html`<p class="muted">${i18n.t("overview.noAssets")}</p>`
        : html`<ul class="ov-assets">${project.assets.slice(0, assetLimit).map((a) => {
            const state = assetState(a, project.alarms, now);
            const age = a.lastTs === null ? null : ctx.formats.age(now - a.lastTs);
            const deps = depsOf(
              a,
              () => (actions.onScreen(a.id) ? [a, a.version, state, age] : [a]),
              actions.adding,
            );
            return guard(deps, () => assetCard(ctx, project.project_id, a, state, age));
          })}</ul>`
    }
  </section>`;
}

function agentView(ctx: PageContext, project: LiveProject, now: number): TemplateResult {
  const { i18n, formats } = ctx;
  const { status, last_seen } = project.agent;
  return html`<p class="ov-agent"><span class="muted">${i18n.t("overview.agent")}</span>
    <span class="badge status-${status === "none" ? "offline" : status}" data-testid="agent-status">${i18n.t(`agent.${status}`)}</span>
    ${
      last_seen
        ? html`<span class="muted" title=${formats.dateTime(last_seen, project.timezone)}>${i18n.t("agent.lastSeen", { age: formats.age(now - Date.parse(last_seen)) })}</span>`
        : nothing
    }</p>`;
}

function productionView(ctx: PageContext, project: LiveProject): TemplateResult {
  const { i18n, formats } = ctx;
  const { today, yesterday } = project.production;
  const bbl = (v: number) => i18n.t("reports.barrels", { value: formats.number(v, 1) });
  const change = yesterday.volume_bbls > 0 ? today.volume_bbls / yesterday.volume_bbls - 1 : null;
  return html`<div class="ov-figure" data-testid="production">
    <span class="ov-label">${i18n.t("overview.productionToday")}</span>
    <span class="ov-big" data-testid="production-today">${bbl(today.volume_bbls)}</span>
    <span class="muted" data-testid="production-yesterday">${i18n.t("overview.productionYesterday", {
      value: bbl(yesterday.volume_bbls),
      time: clockTime(formats.locale, project.timezone, today.to),
    })}${
      change === null
        ? nothing
        : html` <span class=${change < 0 ? "ov-down" : "ov-up"}>(${change > 0 ? "+" : ""}${formats.percent(change)})</span>`
    }</span>
  </div>`;
}

function completenessView(ctx: PageContext, project: LiveProject): TemplateResult {
  const { i18n, formats } = ctx;
  const c = project.completeness;
  return html`<div class="ov-figure">
    <span class="ov-label">${i18n.t("overview.completenessSoFar")}</span>
    <span class="ov-big" data-testid="completeness">${
      c.ratio === null ? i18n.t("overview.nothingPolled") : formats.percent(c.ratio)
    }</span>
    <span class="muted">${i18n.t("overview.samplesSince", {
      received: formats.number(c.samples_received),
      expected: formats.number(c.samples_expected),
      time: clockTime(formats.locale, project.timezone, c.from),
    })}</span>
  </div>`;
}

function alarmCounts(ctx: PageContext, project: LiveProject): TemplateResult {
  const { i18n, formats } = ctx;
  return html`<div class="ov-figure">
    <span class="ov-label">${i18n.t("overview.activeAlarms")}</span>
    <ul class="severity-counts">
      ${SEVERITIES.map((s) => {
        const n = project.alarms.filter((a) => a.severity === s).length;
        return html`<li class="severity-${s} ${n === 0 ? "zero" : ""}"><span class="count" data-testid="alarms-${s}">${formats.number(n)}</span> ${i18n.t(`severity.${s}`)}</li>`;
      })}
    </ul>
    <a href="#/alarms?project=${project.project_id}">${i18n.t("overview.seeAlarms")}</a>
  </div>`;
}
