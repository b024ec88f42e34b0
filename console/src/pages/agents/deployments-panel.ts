import { html, nothing, render } from "lit/html.js";
import type { Deployment, ProjectWithConfigStatus } from "../../api/types.ts";
import { errorText, loadingView, refusalView } from "../../app/load-status.ts";
import type { PageContext } from "../../app/page.ts";

/** How often the history is read again while the newest deployment waits for the agent. */
const PENDING_POLL_MS = 2_000;

/**
 * Where the project's configuration stands (GET /api/edge/projects/{id}: deployed version,
 * pending changes, automatic or manual deployment), the Deploy button for roles with
 * config:write (POST …/deploy), and the deployment history (GET …/deployments).
 */
export class DeploymentsPanel {
  readonly #host: HTMLElement;
  readonly #ctx: PageContext;
  readonly #projectId: string;
  readonly #timeZone: string;
  readonly #onChange: () => void;
  #project: ProjectWithConfigStatus | null = null;
  #deployments: Deployment[] | null = null;
  #busy = false;
  #error: string | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #disposed = false;

  /** `onChange` runs when a deployment changed state (the agent's running version follows). */
  constructor(
    host: HTMLElement,
    ctx: PageContext,
    project: { id: string; timezone: string },
    onChange: () => void,
  ) {
    this.#host = host;
    this.#ctx = ctx;
    this.#projectId = project.id;
    this.#timeZone = project.timezone;
    this.#onChange = onChange;
    this.#render();
    void this.refresh();
  }

  destroy(): void {
    this.#disposed = true;
    clearTimeout(this.#timer);
  }

  async refresh(): Promise<void> {
    const { api } = this.#ctx;
    clearTimeout(this.#timer);
    const before = this.#deployments?.[0];
    try {
      [this.#project, this.#deployments] = await Promise.all([
        api.get<ProjectWithConfigStatus>(`/api/edge/projects/${this.#projectId}`),
        api.get<Deployment[]>(`/api/edge/projects/${this.#projectId}/deployments`),
      ]);
      this.#error = null;
    } catch (err) {
      this.#error = errorText(err);
    }
    if (this.#disposed) return;
    const newest = this.#deployments?.[0];
    if (before && newest && (newest.id !== before.id || newest.status !== before.status)) this.#onChange();
    if (newest?.status === "pending") this.#timer = setTimeout(() => void this.refresh(), PENDING_POLL_MS);
    this.#render();
  }

  async #deploy(): Promise<void> {
    this.#busy = true;
    this.#error = null;
    this.#render();
    try {
      await this.#ctx.api.post<Deployment>(`/api/edge/projects/${this.#projectId}/deploy`);
    } catch (err) {
      this.#error = errorText(err);
    }
    this.#busy = false;
    await this.refresh();
  }

  #historyView(deployments: Deployment[]) {
    const { i18n, formats } = this.#ctx;
    const t = i18n.t.bind(i18n);
    if (deployments.length === 0) return html`<p class="muted">${t("agents.noDeployments")}</p>`;
    return html`<div class="table-scroll"><table data-testid="deployments">
      <caption>${t("agents.history")}</caption>
      <thead><tr><th scope="col">${t("agents.version")}</th><th scope="col">${t("agents.deploymentStatus")}</th>
        <th scope="col">${t("agents.deployedAt")}</th><th scope="col">${t("agents.contents")}</th>
        <th scope="col">${t("agents.deploymentError")}</th></tr></thead>
      <tbody>${deployments.map(
        (d) => html`<tr data-version=${d.version} data-status=${d.status}>
          <td>${t("agents.versionN", { version: d.version })}</td>
          <td><span class="badge deployment-${d.status}">${t(`agents.deployment.${d.status}`)}</span></td>
          <td>${formats.dateTime(d.created_at, this.#timeZone)}</td>
          <td>${t("agents.contentsOf", {
            devices: formats.number(d.devices),
            variables: formats.number(d.variables),
            rules: formats.number(d.alert_rules),
          })}</td>
          <td lang="en">${d.error ?? ""}</td></tr>`,
      )}</tbody></table></div>`;
  }

  #render(): void {
    if (this.#disposed) return;
    const { i18n } = this.#ctx;
    const t = i18n.t.bind(i18n);
    const project = this.#project;
    const status = project?.config_status;
    render(
      html`<h2 id="agents-config">${t("agents.configuration")}</h2>
        ${refusalView(i18n, this.#error)}
        ${
          !project || !status
            ? loadingView(i18n)
            : html`<dl class="facts">
              <dt>${t("agents.deployedVersion")}</dt>
              <dd data-testid="deployed-version">${
                status.deployed_version === null
                  ? t("agents.neverDeployed")
                  : t("agents.versionN", { version: status.deployed_version })
              }</dd>
              <dt>${t("agents.pending")}</dt>
              <dd data-testid="pending-changes" data-pending=${String(status.pending_changes)}>${t(
                status.pending_changes ? "agents.pendingYes" : "agents.pendingNo",
              )}</dd>
              <dt>${t("agents.deployMode")}</dt>
              <dd>${t(project.auto_deploy ? "agents.deployAuto" : "agents.deployManual")}</dd>
            </dl>
            ${
              this.#ctx.can("config:write")
                ? html`<button type="button" data-testid="deploy" ?disabled=${this.#busy}
                    @click=${() => void this.#deploy()}>${t("agents.deploy")}</button>`
                : nothing
            }`
        }
        ${this.#deployments === null ? nothing : this.#historyView(this.#deployments)}`,
      this.#host,
    );
  }
}
