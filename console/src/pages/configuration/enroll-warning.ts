import { html, nothing, type TemplateResult } from "lit/html.js";
import type { AgentHealthDetail } from "../../api/types.ts";
import type { PageContext } from "../../app/page.ts";

/** What the guarded button does once it may: it proceeds as if clicked. */
type Action = () => void;

/**
 * A code issued here (or carried by an installer) enrolls an agent, and enrolling replaces the
 * project's agent token: the agent running now is disconnected at once and refused until it is
 * enrolled again (one agent per project). So, while the project's agent is online, the console
 * says that before it issues one, and goes on only when confirmed.
 */
export class EnrollWarning {
  readonly #ctx: PageContext;
  readonly #projectId: string;
  readonly #rerender: () => void;
  /** The action waiting for the confirmation, and the agent it would displace. */
  #pending: { action: Action; agent: AgentHealthDetail } | null = null;

  constructor(ctx: PageContext, projectId: string, rerender: () => void) {
    this.#ctx = ctx;
    this.#projectId = projectId;
    this.#rerender = rerender;
  }

  /** Runs `action` at once when no agent of the project is online; otherwise asks first. */
  async confirm(action: Action): Promise<void> {
    const agent = await this.#onlineAgent();
    if (!agent) {
      this.#pending = null;
      action();
      return;
    }
    this.#pending = { action, agent };
    this.#rerender();
  }

  /** The agent as the server last heard it, when it is online; null when none is (or unknown). */
  async #onlineAgent(): Promise<AgentHealthDetail | null> {
    try {
      const health = await this.#ctx.api.get<AgentHealthDetail>(`/api/edge/agents/${this.#projectId}/health`);
      return health.status === "offline" ? null : health;
    } catch {
      // 404: no agent has ever connected. Any other failure: the action's own call says what is wrong.
      return null;
    }
  }

  view(): TemplateResult | typeof nothing {
    const pending = this.#pending;
    if (!pending) return nothing;
    const { i18n, formats } = this.#ctx;
    const t = i18n.t.bind(i18n);
    const seen = formats.age(Date.now() - Date.parse(pending.agent.last_seen));
    const answer = (go: boolean) => () => {
      this.#pending = null;
      this.#rerender();
      if (go) pending.action();
    };
    return html`<div class="notice" role="alert" data-testid="enroll-warning">
      <p><strong>${t("config.enroll.online.title")}</strong></p>
      <p>${t("config.enroll.online.body", { seen })}</p>
      <div class="button-row">
        <button type="button" data-testid="enroll-warning-confirm" @click=${answer(true)}>${t("config.enroll.online.confirm")}</button>
        <button type="button" class="secondary" data-testid="enroll-warning-cancel" @click=${answer(false)}>${t("config.enroll.online.cancel")}</button>
      </div>
    </div>`;
  }
}
