import { html, nothing, render } from "lit/html.js";
import { ApiError } from "../../api/api-error.ts";
import type { AgentHealthDetail, HealthReason, Project } from "../../api/types.ts";
import { errorText, loadingView } from "../../app/load-status.ts";
import type { PageContext } from "../../app/page.ts";

/**
 * The project's agent as GET /api/edge/agents/{project_id}/health reports it: status and why,
 * last seen, version, uptime, the configuration version it runs, its buffer backlog and its
 * devices. 404 means no agent has connected yet.
 */
export class HealthPanel {
  readonly #host: HTMLElement;
  readonly #ctx: PageContext;
  readonly #project: Project;
  #health: AgentHealthDetail | "none" | null = null;
  #error: string | null = null;
  #disposed = false;

  constructor(host: HTMLElement, ctx: PageContext, project: Project) {
    this.#host = host;
    this.#ctx = ctx;
    this.#project = project;
    this.#render();
    void this.refresh();
  }

  destroy(): void {
    this.#disposed = true;
  }

  async refresh(): Promise<void> {
    try {
      this.#health = await this.#ctx.api.get<AgentHealthDetail>(
        `/api/edge/agents/${this.#project.id}/health`,
      );
      this.#error = null;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) this.#health = "none";
      else this.#error = errorText(err);
    }
    this.#render();
  }

  #view(h: AgentHealthDetail) {
    const { i18n, formats } = this.#ctx;
    const t = i18n.t.bind(i18n);
    const zone = this.#project.timezone;
    const now = Date.now();
    const seen = Date.parse(h.last_seen);
    const buffer = h.buffer;
    return html`<dl class="facts">
        <dt>${t("agents.status")}</dt>
        <dd><span class="badge status-${h.status}" data-testid="agent-status">${t(`agent.${h.status}`)}</span></dd>
        <dt>${t("agents.lastSeen")}</dt>
        <dd title=${formats.dateTime(seen, zone)}>${formats.age(now - seen)}</dd>
        <dt>${t("agents.version")}</dt>
        <dd data-testid="agent-version">${h.agent_version ?? "—"}</dd>
        <dt>${t("agents.uptime")}</dt>
        <dd>${h.status === "offline" ? "—" : t("agents.since", { time: formats.dateTime(now - h.uptime_seconds * 1000, zone) })}</dd>
        <dt>${t("agents.runningConfig")}</dt>
        <dd data-testid="running-version">${
          h.config?.version == null
            ? t("agents.noConfigYet")
            : t("agents.versionN", { version: h.config.version })
        }</dd>
        <dt>${t("agents.buffer")}</dt>
        <dd data-testid="buffer">${
          buffer === null
            ? "—"
            : html`${t("agents.bufferPoints", { points: formats.number(buffer.points), batches: formats.number(buffer.batches) })}${
                buffer.oldest_ts === null
                  ? nothing
                  : html` · ${t("agents.bufferOldest", { age: formats.age(now - buffer.oldest_ts) })}`
              }${
                buffer.dropped_batches > 0
                  ? html` · <span class="severity-warning">${t("agents.bufferDropped", { count: formats.number(buffer.dropped_batches) })}</span>`
                  : nothing
              }`
        }</dd>
      </dl>
      ${
        h.reason_codes && h.reason_codes.length > 0
          ? html`<ul class="reasons" data-testid="health-reasons">${h.reason_codes.map((r) => html`<li>${reasonText(r, this.#ctx)}</li>`)}</ul>`
          : h.reasons.length > 0
            ? html`<ul class="reasons" lang="en" data-testid="health-reasons">${h.reasons.map((r) => html`<li>${r}</li>`)}</ul>`
            : nothing
      }
      ${
        h.devices.length === 0
          ? nothing
          : html`<div class="table-scroll"><table data-testid="agent-devices">
            <caption>${t("agents.devices")}</caption>
            <thead><tr><th scope="col">${t("agents.device")}</th><th scope="col">${t("agents.deviceState")}</th>
              <th scope="col">${t("agents.lastRead")}</th><th scope="col">${t("agents.lastError")}</th></tr></thead>
            <tbody>${h.devices.map(
              (d) => html`<tr data-device=${d.device_id}><td>${d.name}</td>
                <td><span class="badge device-${d.state}">${t(`agents.deviceState.${d.state}`)}</span></td>
                <td data-testid="last-read">${lastRead(d, now, formats)}</td>
                <td lang="en">${d.last_error ?? ""}</td></tr>`,
            )}</tbody></table></div>`
      }`;
  }

  #render(): void {
    if (this.#disposed) return;
    const { i18n } = this.#ctx;
    const h = this.#health;
    render(
      html`<h2 id="agents-health">${i18n.t("agents.health")}</h2>
        ${this.#error ? html`<p class="error" role="alert" lang="en">${this.#error}</p>` : nothing}
        ${
          h === null
            ? loadingView(i18n)
            : h === "none"
              ? html`<p data-testid="agent-none">${i18n.t("agents.none")}
                ${
                  this.#ctx.can("config:write")
                    ? html`<a href="#/configuration?project=${this.#project.id}">${i18n.t("agents.installOne")}</a>`
                    : nothing
                }</p>`
              : this.#view(h)
        }`,
      this.#host,
    );
  }
}

/**
 * When the device was last read: the newest reading the server holds of it, or the heartbeat's
 * time if that is newer (readings still buffered on the agent). The heartbeat alone made a device
 * polled every second look 14 s stale.
 */
function lastRead(
  d: AgentHealthDetail["devices"][number],
  now: number,
  formats: PageContext["formats"],
): string {
  const times = [d.last_reading_at, d.last_read_at].filter((x): x is string => !!x).map(Date.parse);
  return times.length === 0 ? "—" : formats.age(now - Math.max(...times));
}

/** A health reason in the console's language; a driver's own message stays as the agent sent it. */
function reasonText(r: HealthReason, ctx: PageContext) {
  const { i18n, formats } = ctx;
  switch (r.code) {
    case "went_offline":
      return i18n.t("agents.reason.wentOffline");
    case "no_heartbeat":
      return i18n.t("agents.reason.noHeartbeat", { seconds: formats.number(r.seconds) });
    case "backlog":
      return i18n.t("agents.reason.backlog", {
        minutes: formats.number(r.minutes),
        points: formats.number(r.points),
      });
    case "device":
      return html`${i18n.t("agents.reason.device", { device: r.device, state: i18n.t(`agents.deviceState.${r.state}`) })}${
        r.error ? html`: <span lang="en">${r.error}</span>` : nothing
      }`;
  }
}
