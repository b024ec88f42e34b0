import { html, nothing, render } from "lit/html.js";
import type { Alarm } from "../api/types.ts";
import type { PageContext, PageDef } from "../app/page.ts";
import { OverviewModel } from "../overview/overview-model.ts";
import type { DashboardOverview } from "../overview/overview-types.ts";
import { projectView } from "../overview/project-view.ts";

/**
 * Figures the stream does not carry (production, completeness, the agent's state) are read again
 * this often, with everything else, in one request.
 */
const REFRESH_MS = 60_000;
/** Ages, asset states and the sparklines' window move with the clock. */
const TICK_MS = 5_000;
/** Stream updates are drawn at most this often: an overview need not move faster than a person reads. */
const LIVE_REDRAW_MS = 1_000;
/**
 * A first draw adds asset cards a frame at a time, as many as fit in this much script time by what
 * the previous frame's cards cost: layout and paint of the new cards follow in the same frame, and
 * a loaded machine (or a slow phone) makes every card dearer, so a fixed count per frame is either
 * too timid on a fast machine or a long task on a busy one.
 */
const FRAME_BUDGET_MS = 8;

/**
 * The field at a glance for a shift (GET /api/dashboard/overview, one request): per project its
 * agent, today's production against yesterday's at the same hour, completeness so far today, its
 * alarms (acknowledged in place) and its assets with their state, key values and sparklines,
 * kept live by the WebSocket stream. Only cards on screen are redrawn (an IntersectionObserver
 * says which); a card that scrolls into view is brought up to date then.
 */
function renderOverview(host: HTMLElement, ctx: PageContext) {
  const { i18n, api } = ctx;
  let model: OverviewModel | null = null;
  let failure: string | null = null;
  let loading: Promise<void> | null = null;
  const pending = new Set<string>();
  let frame = 0;
  /** Whether something asked for a redraw since the last frame (not only the first draw's next cards). */
  let changed = true;
  /** Asset cards drawn so far (all of them once the first draw is complete). */
  let cards = 0;
  /**
   * What drawing one new card took in the frames that added some (ms, smoothed). Until measured, a
   * card is taken to fill a frame: the first cards are the dearest (their templates and code are
   * made and compiled then), so they come one a frame.
   */
  let cardMs = FRAME_BUDGET_MS;
  let redrawTimer: ReturnType<typeof setTimeout> | undefined;

  const onScreen = new Set<string>();
  const observed = new WeakSet<Element>();
  const observer = new IntersectionObserver((entries) => {
    let appeared = false;
    for (const entry of entries) {
      const id = (entry.target as HTMLElement).dataset.asset;
      if (!id) continue;
      if (entry.isIntersecting) {
        appeared ||= !onScreen.has(id);
        onScreen.add(id);
      } else onScreen.delete(id);
    }
    if (appeared) drawNow();
  });
  const observeCards = () => {
    for (const card of host.querySelectorAll(".ov-asset")) {
      if (observed.has(card)) continue;
      observed.add(card);
      observer.observe(card);
    }
  };
  const actions = {
    ack: (alarm: Alarm) => ack(alarm),
    pending,
    onScreen: (id: string) => onScreen.has(id),
    adding: false,
  };

  const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

  const load = () => {
    loading ??= api
      .get<DashboardOverview>("/api/dashboard/overview")
      .then(
        (overview) => {
          if (model === null) cards = 0;
          model = new OverviewModel(overview);
          failure = null;
        },
        (err: unknown) => {
          failure = message(err);
        },
      )
      .finally(() => {
        loading = null;
        drawNow();
      });
    return loading;
  };

  const ack = (alarm: Alarm) => {
    pending.add(alarm.id);
    drawNow();
    api
      .post<Alarm>(`/api/alarms/${alarm.id}/ack`)
      .then(
        (updated) => {
          model?.setAlarm(updated);
          failure = null;
        },
        (err: unknown) => {
          failure = message(err);
        },
      )
      .finally(() => {
        pending.delete(alarm.id);
        drawNow();
      });
  };

  const draw = () => {
    frame = 0;
    actions.adding = !changed;
    changed = false;
    if (!actions.adding) {
      clearTimeout(redrawTimer);
      redrawTimer = undefined;
    }
    const now = Date.now();
    const total = model?.projects.reduce((n, p) => n + p.assets.length, 0) ?? 0;
    const before = cards;
    // The frame that first draws the projects' tops (templates and formatters made the first
    // time) adds a single card; the next frames add what their budget holds.
    const add = before === 0 ? 1 : Math.max(1, Math.floor(FRAME_BUDGET_MS / cardMs));
    cards = Math.min(total, cards + add);
    let budget = cards;
    const started = performance.now();
    render(
      html`<h1>${i18n.t("overview.title")}</h1>
        ${failure ? html`<p class="error" role="alert">${failure}</p>` : nothing}
        ${
          model === null
            ? failure
              ? nothing
              : html`<p aria-busy="true">${i18n.t("common.loading")}</p>`
            : model.projects.length === 0
              ? html`<p>${i18n.t("overview.noProjects")}</p>`
              : model.projects.map((p) => {
                  const limit = budget;
                  budget = Math.max(0, budget - p.assets.length);
                  return projectView(ctx, p, now, actions, limit);
                })
        }`,
      host,
    );
    if (cards > before && before > 0) {
      // The whole draw is charged to the new cards: the rest of the page is what every frame redraws.
      const measured = (performance.now() - started) / (cards - before);
      cardMs = before === 1 ? measured : (cardMs + measured) / 2;
    }
    observeCards();
    if (cards < total && frame === 0) frame = requestAnimationFrame(draw);
  };
  const drawNow = () => {
    changed = true;
    if (frame === 0) frame = requestAnimationFrame(draw);
  };
  const drawSoon = () => {
    // A frame already due draws it, unless it only adds cards.
    if (redrawTimer === undefined && !(frame !== 0 && changed))
      redrawTimer = setTimeout(drawNow, LIVE_REDRAW_MS);
  };

  draw();
  void load();
  // Number and age formatters are costly to make the first time: made while the answer is on its
  // way, in a task of their own, rather than in the frame that first draws it.
  const warm = setTimeout(() => {
    ctx.formats.number(0);
    ctx.formats.number(0, 1);
    ctx.formats.percent(0);
    ctx.formats.age(0);
  }, 0);
  const offMessage = ctx.stream.onMessage((m) => {
    if (m.type === "dropped") void load();
    else if (model?.apply(m)) drawSoon();
  });
  // Back on the stream after a break: what happened meanwhile is read again.
  const offStatus = ctx.stream.onStatus((s) => {
    if (s === "open" && model) void load();
  });
  const tick = setInterval(() => {
    model?.advance(Date.now());
    drawNow();
  }, TICK_MS);
  const refresh = setInterval(() => void load(), REFRESH_MS);
  return () => {
    observer.disconnect();
    offMessage();
    offStatus();
    clearTimeout(warm);
    clearInterval(tick);
    clearInterval(refresh);
    clearTimeout(redrawTimer);
    cancelAnimationFrame(frame);
  };
}

export const overviewPage: PageDef = {
  id: "overview",
  path: "/overview",
  titleKey: "overview.title",
  nav: { labelKey: "nav.overview" },
  requires: ["projects:read", "config:read", "telemetry:read", "alarms:read"],
  render: renderOverview,
};
