import { html, nothing, render } from "lit/html.js";
import type { AgentLogEntry, AgentLogLevel } from "../../api/types.ts";
import { errorText, loadingView } from "../../app/load-status.ts";
import type { PageContext } from "../../app/page.ts";
import type { MessageKey } from "../../i18n/i18n.ts";

const LOG_LIMIT = 200;

/** The level filter: the API returns entries at or above the level chosen. */
const LEVELS: readonly (readonly ["" | AgentLogLevel, MessageKey])[] = [
  ["", "agents.logs.all"],
  ["info", "agents.logs.info"],
  ["warn", "agents.logs.warn"],
  ["error", "agents.logs.error"],
];

/** The agent's log as it forwards it (GET /api/edge/agents/logs), newest first, filtered by level. */
export class LogsPanel {
  readonly #host: HTMLElement;
  readonly #ctx: PageContext;
  readonly #projectId: string;
  readonly #timeZone: string;
  #level: "" | AgentLogLevel = "";
  #entries: AgentLogEntry[] | null = null;
  #error: string | null = null;
  #request = 0;
  #disposed = false;

  constructor(host: HTMLElement, ctx: PageContext, project: { id: string; timezone: string }) {
    this.#host = host;
    this.#ctx = ctx;
    this.#projectId = project.id;
    this.#timeZone = project.timezone;
    this.#render();
    void this.refresh();
  }

  destroy(): void {
    this.#disposed = true;
  }

  async refresh(): Promise<void> {
    const request = ++this.#request;
    try {
      const entries = await this.#ctx.api.get<AgentLogEntry[]>("/api/edge/agents/logs", {
        project_id: this.#projectId,
        level: this.#level || undefined,
        limit: LOG_LIMIT,
      });
      // A slower answer to an earlier filter never replaces the newer one.
      if (request !== this.#request) return;
      this.#entries = entries;
      this.#error = null;
    } catch (err) {
      this.#error = errorText(err);
    }
    this.#render();
  }

  #render(): void {
    if (this.#disposed) return;
    const { i18n, formats } = this.#ctx;
    const t = i18n.t.bind(i18n);
    const entries = this.#entries;
    render(
      html`<h2 id="agents-logs">${t("agents.logs.title")}</h2>
        <div class="filters">
          <label>${t("agents.logs.level")}
            <select data-testid="log-level" @change=${(e: Event) => {
              this.#level = (e.target as HTMLSelectElement).value as "" | AgentLogLevel;
              void this.refresh();
            }}>
              ${LEVELS.map(([value, key]) => html`<option value=${value} ?selected=${value === this.#level}>${t(key)}</option>`)}
            </select></label>
          <button type="button" class="secondary" @click=${() => void this.refresh()}>${t("agents.logs.refresh")}</button>
        </div>
        ${this.#error ? html`<p class="error" role="alert" lang="en">${this.#error}</p>` : nothing}
        ${
          entries === null
            ? loadingView(i18n)
            : entries.length === 0
              ? html`<p class="muted" data-testid="no-logs">${t("agents.logs.none")}</p>`
              : html`<div class="table-scroll log-scroll"><table data-testid="agent-logs">
                <caption class="visually-hidden">${t("agents.logs.title")}</caption>
                <thead><tr><th scope="col">${t("agents.logs.time")}</th><th scope="col">${t("agents.logs.levelColumn")}</th>
                  <th scope="col">${t("agents.logs.category")}</th><th scope="col">${t("agents.logs.message")}</th></tr></thead>
                <tbody>${entries.map(
                  (
                    e,
                  ) => html`<tr data-level=${e.level}><td class="nowrap">${formats.dateTime(e.timestamp, this.#timeZone)}</td>
                    <td><span class="badge level-${e.level}">${e.level}</span></td><td>${e.category}</td>
                    <td lang="en">${e.message}</td></tr>`,
                )}</tbody></table></div>`
        }`,
      this.#host,
    );
  }
}
