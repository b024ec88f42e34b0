import { html, nothing, type TemplateResult } from "lit/html.js";
import type { LocalAlarmEntry, LocalLink, LocalStatus } from "../../shared/agent-local-api.ts";
import type { Formats } from "../src/i18n/format.ts";
import { LANGUAGES, type Language } from "../src/i18n/i18n.ts";
import type { PageI18n } from "./i18n.ts";
import type { PageState } from "./local-api-poller.ts";

export type ViewContext = {
  i18n: PageI18n;
  formats: Formats;
  /** The browser's time zone: the page runs at the site, beside the agent. */
  timeZone: string;
  setLanguage(language: Language): void;
};

const DASH = "—";

/** The whole page for `state`. */
export function pageView(state: PageState, ctx: ViewContext): TemplateResult {
  const { i18n } = ctx;
  const t = i18n.t.bind(i18n);
  const onLanguage = (e: Event) => {
    const value = (e.target as HTMLSelectElement).value;
    const language = LANGUAGES.find((l) => l === value);
    if (language) ctx.setLanguage(language);
  };
  return html`
    <header class="topbar">
      <span class="brand">Caudal</span>
      <div class="topbar-tools">
        <label class="language">
          <span class="visually-hidden">${t("page.language")}</span>
          <select @change=${onLanguage} data-testid="language">
            ${LANGUAGES.map(
              (l) => html`<option value=${l} ?selected=${l === i18n.language}>${t(`language.${l}`)}</option>`,
            )}
          </select>
        </label>
      </div>
    </header>
    <main>
      <h1>${t("page.title")}</h1>
      ${freshness(state, ctx)}
      ${state.status ? body(state.status, state.alarms ?? [], ctx) : nothing}
    </main>
  `;
}

function freshness(state: PageState, ctx: ViewContext): TemplateResult {
  const t = ctx.i18n.t.bind(ctx.i18n);
  const at = state.updatedAt === null ? null : ctx.formats.dateTime(state.updatedAt, ctx.timeZone);
  if (!state.reachable)
    return html`<p class="alert" role="alert" data-testid="unreachable">
      ${at === null ? t("page.unreachableNoData") : t("page.unreachable", { time: at })}
    </p>`;
  if (at === null) return html`<p class="muted">${t("page.loading")}</p>`;
  return html`<p class="muted" data-testid="updated">${t("page.updated", { time: at })}</p>`;
}

function body(s: LocalStatus, alarms: LocalAlarmEntry[], ctx: ViewContext): TemplateResult {
  return html`
    <div class="cards">
      ${linkCard(s, ctx)} ${configCard(s, ctx)} ${bufferCard(s, ctx)} ${agentCard(s, ctx)}
    </div>
    ${alarmsSection(
      alarms.filter((a) => a.active),
      ctx,
    )}
    ${devicesSection(s, ctx)} ${valuesSection(s, ctx)}
  `;
}

function linkCard(s: LocalStatus, ctx: ViewContext): TemplateResult {
  const t = ctx.i18n.t.bind(ctx.i18n);
  const refused = s.connected ? null : (s.link?.refused ?? null);
  return html`<section class="card" aria-labelledby="link-title" data-testid="link">
    <h2 id="link-title">${t("link.title")}</h2>
    <p>
      <span class="badge ${s.connected ? "state-good" : "state-bad"}" data-testid="link-state"
        >${s.connected ? t("link.connected") : refused ? t("link.refused") : t("link.disconnected")}</span
      >
    </p>
    ${s.connected ? nothing : refused ? refusedHelp(s.link, refused, ctx) : html`<p>${t("link.disconnectedHelp")}</p>`}
    <p class="muted">
      ${
        s.last_sync
          ? t("link.lastSync", { time: ctx.formats.dateTime(s.last_sync, ctx.timeZone) })
          : t("link.neverSynced")
      }
    </p>
  </section>`;
}

/**
 * The server refuses this agent's credentials: said in the reader's language from the agent's
 * facts (the agent's own `reason` is English, for its log), with what to do.
 */
function refusedHelp(
  link: LocalLink | null,
  refused: NonNullable<LocalLink["refused"]>,
  ctx: ViewContext,
): TemplateResult {
  const t = ctx.i18n.t.bind(ctx.i18n);
  const time = (iso: string) => ctx.formats.dateTime(iso, ctx.timeZone);
  return html`<div role="alert" data-testid="link-refused">
    <p>${t("link.refusedSince", { time: time(refused.first_at) })}</p>
    ${link?.lost_at ? html`<p>${t("link.refusedClosed", { time: time(link.lost_at) })}</p>` : nothing}
    <p><strong>${t("link.refusedAction")}</strong></p>
    <p class="muted">
      ${t("link.refusedRetry", { attempts: ctx.formats.number(refused.attempts, 0) })}
      ${refused.next_attempt_at ? t("link.refusedNext", { time: time(refused.next_attempt_at) }) : nothing}
    </p>
  </div>`;
}

function configCard(s: LocalStatus, ctx: ViewContext): TemplateResult {
  const t = ctx.i18n.t.bind(ctx.i18n);
  const c = s.config;
  return html`<section class="card" aria-labelledby="config-title" data-testid="config">
    <h2 id="config-title">${t("config.title")}</h2>
    ${
      c
        ? html`<p class="figure" data-testid="config-version">${t("config.version", { version: c.version })}</p>
          <p>${t("config.appliedAt", { time: ctx.formats.dateTime(c.applied_at, ctx.timeZone) })}</p>
          <p class="muted">${t("config.hash")}: <code title=${c.hash}>${c.hash.slice(0, 12)}</code></p>`
        : html`<p>${t("config.none")}</p>`
    }
  </section>`;
}

function bufferCard(s: LocalStatus, ctx: ViewContext): TemplateResult {
  const t = ctx.i18n.t.bind(ctx.i18n);
  const n = (v: number) => ctx.formats.number(v, 0);
  const b = s.buffer;
  return html`<section class="card" aria-labelledby="buffer-title" data-testid="buffer">
    <h2 id="buffer-title">${t("buffer.title")}</h2>
    <dl>
      <div><dt>${t("buffer.points")}</dt><dd data-testid="buffer-points">${n(b.points)}</dd></div>
      <div><dt>${t("buffer.batches")}</dt><dd>${n(b.batches)}</dd></div>
      <div>
        <dt>${t("buffer.oldest")}</dt>
        <dd>${b.oldest ? ctx.formats.dateTime(b.oldest, ctx.timeZone) : t("buffer.none")}</dd>
      </div>
      <div><dt>${t("buffer.dropped")}</dt><dd>${n(b.dropped_points)}</dd></div>
    </dl>
  </section>`;
}

function agentCard(s: LocalStatus, ctx: ViewContext): TemplateResult {
  const t = ctx.i18n.t.bind(ctx.i18n);
  const since = Date.now() - s.uptime_seconds * 1000;
  return html`<section class="card" aria-labelledby="agent-title" data-testid="agent">
    <h2 id="agent-title">${t("agent.title")}</h2>
    <dl>
      <div><dt>${t("agent.version")}</dt><dd>${s.agent_version}</dd></div>
      <div><dt>${t("agent.since")}</dt><dd>${ctx.formats.dateTime(since, ctx.timeZone)}</dd></div>
      <div><dt>${t("agent.id")}</dt><dd><code class="id">${s.agent_id}</code></dd></div>
    </dl>
  </section>`;
}

function alarmsSection(active: LocalAlarmEntry[], ctx: ViewContext): TemplateResult {
  const { i18n, formats } = ctx;
  const t = i18n.t.bind(i18n);
  return html`<section aria-labelledby="alarms-title" data-testid="alarms">
    <h2 id="alarms-title">${t("alarms.title")}</h2>
    ${
      active.length === 0
        ? html`<p class="muted">${t("alarms.none")}</p>`
        : html`<div class="table-scroll">
          <table aria-labelledby="alarms-title">
            <thead>
              <tr>
                <th scope="col">${t("alarms.severity")}</th>
                <th scope="col">${t("alarms.type")}</th>
                <th scope="col">${t("alarms.variable")}</th>
                <th scope="col" class="num">${t("alarms.value")}</th>
                <th scope="col">${t("alarms.message")}</th>
                <th scope="col">${t("alarms.raisedAt")}</th>
              </tr>
            </thead>
            <tbody>
              ${active.map(
                (a) => html`<tr data-alarm=${a.id}>
                  <td><span class="badge severity-${a.severity}">${i18n.label("severity", a.severity)}</span></td>
                  <td>${i18n.label("alarmType", a.alarm_type)}</td>
                  <td>${a.variable}</td>
                  <td class="num">${formats.number(a.value)}</td>
                  <td>${a.message}</td>
                  <td>${formats.dateTime(a.raised_at, ctx.timeZone)}</td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`
    }
  </section>`;
}

function devicesSection(s: LocalStatus, ctx: ViewContext): TemplateResult {
  const { i18n, formats } = ctx;
  const t = i18n.t.bind(i18n);
  return html`<section aria-labelledby="devices-title" data-testid="devices">
    <h2 id="devices-title">${t("devices.title")}</h2>
    ${
      s.devices.length === 0
        ? html`<p class="muted">${t("devices.none")}</p>`
        : html`<div class="table-scroll">
          <table aria-labelledby="devices-title">
            <thead>
              <tr>
                <th scope="col">${t("devices.device")}</th>
                <th scope="col">${t("devices.state")}</th>
                <th scope="col">${t("devices.lastRead")}</th>
                <th scope="col">${t("devices.lastError")}</th>
                <th scope="col" class="num">${t("devices.reconnects")}</th>
              </tr>
            </thead>
            <tbody>
              ${s.devices.map(
                (d) => html`<tr data-device=${d.device_id}>
                  <th scope="row">${d.name}</th>
                  <td>
                    <span class="badge ${d.state === "ok" ? "state-good" : "state-bad"}" data-testid="device-state"
                      >${i18n.label("deviceState", d.state)}</span
                    >
                  </td>
                  <td>${d.last_read_at ? formats.dateTime(d.last_read_at, ctx.timeZone) : t("common.never")}</td>
                  <td class="detail">${d.last_error ?? DASH}</td>
                  <td class="num">${formats.number(d.reconnects, 0)}</td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`
    }
  </section>`;
}

function valuesSection(s: LocalStatus, ctx: ViewContext): TemplateResult {
  const { i18n, formats } = ctx;
  const t = i18n.t.bind(i18n);
  // Device by device, in the configuration's order, each device's variables by name.
  const order = new Map(s.devices.map((d, i) => [d.device_id, i]));
  const names = new Map(s.devices.map((d) => [d.device_id, d.name]));
  const values = [...s.last_values].sort(
    (a, b) =>
      (order.get(a.device_id) ?? order.size) - (order.get(b.device_id) ?? order.size) ||
      a.alias.localeCompare(b.alias),
  );
  return html`<section aria-labelledby="values-title" data-testid="values">
    <h2 id="values-title">${t("values.title")}</h2>
    ${
      values.length === 0
        ? html`<p class="muted">${t("values.none")}</p>`
        : html`<div class="table-scroll">
          <table aria-labelledby="values-title">
            <thead>
              <tr>
                <th scope="col">${t("values.device")}</th>
                <th scope="col">${t("values.variable")}</th>
                <th scope="col" class="num">${t("values.value")}</th>
                <th scope="col">${t("values.unit")}</th>
                <th scope="col">${t("values.quality")}</th>
                <th scope="col">${t("values.time")}</th>
              </tr>
            </thead>
            <tbody>
              ${values.map(
                (v) => html`<tr data-variable=${v.alias} data-device=${v.device_id}>
                  <td>${names.get(v.device_id) ?? v.device_id}</td>
                  <th scope="row">${v.alias}</th>
                  <td class="num" data-testid="value">${v.value === null ? DASH : formats.number(v.value)}</td>
                  <td>${v.unit ?? ""}</td>
                  <td>
                    <span class="badge ${v.quality === "good" ? "state-good" : "state-bad"}"
                      >${i18n.label("quality", v.quality)}</span
                    >
                    ${v.detail ? html`<span class="detail">${v.detail}</span>` : nothing}
                  </td>
                  <td>${formats.dateTime(v.ts, ctx.timeZone)}</td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`
    }
  </section>`;
}
