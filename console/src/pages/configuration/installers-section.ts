import { html, nothing, render } from "lit/html.js";
import type { AgentBuildStatus } from "../../../../shared/distribution/agent-build-status.ts";
import type { AgentTarget } from "../../../../shared/distribution/agent-manifest.ts";
import { linuxTarget } from "../../../../shared/distribution/linux-arch.ts";
import type {
  BuildStatus,
  EnrollmentCode,
  InstallerAddress,
  InstallerBuild,
  IssuedEnrollmentCode,
} from "../../api/types.ts";
import { saveFile } from "../../app/download.ts";
import { errorText, loadingView, refusalView } from "../../app/load-status.ts";
import type { PageContext } from "../../app/page.ts";
import { LINUX_ARCHES } from "./choices.ts";
import { EnrollWarning } from "./enroll-warning.ts";

/** How often a Windows installer build is asked about while it is queued or running. */
const BUILD_POLL_MS = 2_000;
/** How often GET /health is asked about the agent executables while the server builds them. */
const AGENT_BUILD_POLL_MS = 5_000;

/**
 * What installs the project's agent, each fetched with the bearer token and saved from memory:
 * the Linux install script (GET …/linux-install) and binaries (GET /api/edge/agent/linux-binary/{arch}),
 * the Windows MSI (GET …/installer, which queues a build and answers 202 until one is ready; its
 * status from GET …/builds/{build_id}, and POST …/build after a failure), and the enrollment codes
 * (issue, list, revoke).
 */
export class InstallersSection {
  readonly #host: HTMLElement;
  readonly #ctx: PageContext;
  readonly #projectId: string;
  /** Dates in the project's time zone, as every page shows them. */
  readonly #timeZone: string;
  #codes: EnrollmentCode[] | null = null;
  /** The server address the installers carry (GET /api/edge/installer-address), or why there is none. */
  #address: InstallerAddress | null = null;
  #addressError: string | null = null;
  /**
   * The server's agent executables (GET /health `agent_build`): a download is offered only for what
   * is built; otherwise the state (being built, failed, cannot be built) is shown. Null until known.
   */
  #agentBuild: AgentBuildStatus | null = null;
  #agentTimer: ReturnType<typeof setTimeout> | undefined;
  #issued: IssuedEnrollmentCode | null = null;
  #build: Pick<InstallerBuild, "id" | "status" | "log"> | null = null;
  #busy: string | null = null;
  #notice: string | null = null;
  #error: string | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #disposed = false;
  /** Asked before a code is issued while the project's agent is online (enrolling displaces it). */
  readonly #enrollWarning: EnrollWarning;

  constructor(host: HTMLElement, ctx: PageContext, project: { id: string; timezone: string }) {
    this.#host = host;
    this.#ctx = ctx;
    this.#projectId = project.id;
    this.#timeZone = project.timezone;
    this.#enrollWarning = new EnrollWarning(ctx, project.id, () => this.#render());
    this.#render();
    void this.#loadCodes();
    void this.#loadAddress();
    void this.#loadAgentBuild();
  }

  destroy(): void {
    this.#disposed = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#agentTimer);
  }

  async #loadAgentBuild(): Promise<void> {
    try {
      const health = await this.#ctx.api.get<{ agent_build?: AgentBuildStatus }>("/health");
      if (this.#disposed) return;
      this.#agentBuild = health.agent_build ?? null;
      if (this.#agentBuild?.state === "building")
        this.#agentTimer = setTimeout(() => void this.#loadAgentBuild(), AGENT_BUILD_POLL_MS);
    } catch {
      // No state to show: the buttons are offered, and a refusal says why.
      this.#agentBuild = null;
    }
    this.#render();
  }

  /** Whether one of `targets` is built, as far as the page knows (unknown: offered). */
  #offered(targets: readonly AgentTarget[]): boolean {
    const built = this.#agentBuild?.built;
    return built === undefined || targets.some((t) => built.includes(t));
  }

  /** In place of a download that would fail: the executables are being built, or why they are not. */
  #agentBuildView(testId: string) {
    const status = this.#agentBuild;
    if (!status) return nothing;
    const { i18n } = this.#ctx;
    if (status.state === "building") {
      const progress = status.progress ?? { done: 0, total: 0 };
      return html`<p role="status" aria-busy="true" data-testid=${testId} data-state="building">${i18n.t("config.install.agentBuild.building", progress)}
        ${status.step ? html`<code lang="en">${status.step}</code>` : nothing}</p>`;
    }
    return html`<p class="notice" data-testid=${testId} data-state=${status.state}><span>${i18n.t(status.state === "failed" ? "config.install.agentBuild.failed" : "config.install.agentBuild.unavailable")}</span>
      ${status.message ? html`<span lang="en">${status.message}</span>` : nothing}</p>`;
  }

  get #base(): string {
    return `/api/edge/projects/${this.#projectId}`;
  }

  async #loadCodes(): Promise<void> {
    try {
      this.#codes = await this.#ctx.api.get<EnrollmentCode[]>(`${this.#base}/enrollment-codes`);
    } catch (err) {
      this.#error = errorText(err);
    }
    this.#render();
  }

  async #loadAddress(): Promise<void> {
    try {
      this.#address = await this.#ctx.api.get<InstallerAddress>("/api/edge/installer-address");
    } catch (err) {
      this.#addressError = errorText(err);
    }
    this.#render();
  }

  /**
   * Which server address the installers carry: PUBLIC_URL, or (unset) the one this page was opened
   * on, with a warning to set PUBLIC_URL, stronger when that address is localhost.
   */
  #addressView() {
    const { i18n } = this.#ctx;
    if (this.#addressError)
      return html`<p class="notice" role="alert" data-testid="installer-address">${this.#addressError}</p>`;
    const address = this.#address;
    if (!address) return nothing;
    const url = address.server_url;
    if (address.source === "PUBLIC_URL")
      return html`<p class="muted" data-testid="installer-address">${i18n.t("config.install.address.configured", { url })}</p>`;
    return html`<p class="notice" role="status" data-testid="installer-address" data-loopback=${String(address.loopback)}>
      ${i18n.t("config.install.address.request", { url })}
      ${address.loopback ? i18n.t("config.install.address.loopback", { url }) : nothing}</p>`;
  }

  /** Runs one action with its button disabled; its error (the API's message) shown. */
  async #run(name: string, action: () => Promise<void>): Promise<void> {
    this.#busy = name;
    this.#error = null;
    this.#notice = null;
    this.#render();
    try {
      await action();
    } catch (err) {
      this.#error = errorText(err);
    }
    this.#busy = null;
    this.#render();
  }

  async #save(path: string, accept: string): Promise<void> {
    const file = await this.#ctx.api.download(path, {}, accept);
    saveFile(file.blob, file.filename);
    this.#notice = this.#ctx.i18n.t("config.install.saved", { file: file.filename });
  }

  async #windowsInstaller(): Promise<void> {
    const file = await this.#ctx.api.download(`${this.#base}/installer`, {}, "application/x-msi");
    if (file.status === 202) {
      const queued = JSON.parse(await file.blob.text()) as { build_id: string; status: BuildStatus };
      this.#watch(queued.build_id);
      return;
    }
    this.#build = null;
    saveFile(file.blob, file.filename);
    this.#notice = this.#ctx.i18n.t("config.install.saved", { file: file.filename });
    await this.#loadCodes();
  }

  /** Follows a build until it succeeded (then the download button fetches it) or failed (its log). */
  #watch(buildId: string): void {
    clearTimeout(this.#timer);
    const poll = async () => {
      try {
        const build = await this.#ctx.api.get<InstallerBuild>(`${this.#base}/builds/${buildId}`);
        if (this.#disposed) return;
        this.#build = build;
        if (build.status === "queued" || build.status === "running")
          this.#timer = setTimeout(() => void poll(), BUILD_POLL_MS);
      } catch (err) {
        this.#error = errorText(err);
      }
      this.#render();
    };
    void poll();
  }

  #buildView() {
    const build = this.#build;
    if (!build) return nothing;
    const { i18n } = this.#ctx;
    return html`<p role="status" data-testid="msi-build" data-status=${build.status}>${i18n.t(`config.install.build.${build.status}`)}</p>
      ${
        build.status === "failed"
          ? html`<details><summary>${i18n.t("config.install.buildLog")}</summary><pre class="build-log" lang="en">${build.log}</pre></details>
            <button type="button" class="secondary" ?disabled=${this.#busy !== null}
              @click=${() =>
                void this.#run("rebuild", async () => {
                  const queued = await this.#ctx.api.post<{ build_id: string }>(`${this.#base}/build`);
                  this.#watch(queued.build_id);
                })}>${i18n.t("config.install.buildAgain")}</button>`
          : nothing
      }`;
  }

  #codesView() {
    const { i18n, formats, api } = this.#ctx;
    const t = i18n.t.bind(i18n);
    const codes = this.#codes;
    const when = (iso: string | null) => (iso ? formats.dateTime(iso, this.#timeZone) : "—");
    if (codes === null) return loadingView(i18n);
    if (codes.length === 0)
      return html`<p class="muted" data-testid="no-codes">${t("config.codes.none")}</p>`;
    return html`<div class="table-scroll"><table data-testid="enrollment-codes">
      <caption class="visually-hidden">${t("config.codes.title")}</caption>
      <thead><tr><th scope="col">${t("config.codes.created")}</th><th scope="col">${t("config.codes.purpose")}</th>
        <th scope="col">${t("config.codes.expires")}</th><th scope="col">${t("config.codes.status")}</th>
        <th scope="col">${t("config.actions")}</th></tr></thead>
      <tbody>${codes.map(
        (
          c,
        ) => html`<tr data-code=${c.id}><td>${when(c.created_at)}</td><td>${t(`config.codes.purpose.${c.purpose}`)}</td>
          <td>${when(c.expires_at)}</td><td>${t(`config.codes.status.${c.status}`)}</td>
          <td>${
            c.status === "active"
              ? html`<button type="button" class="secondary" ?disabled=${this.#busy !== null}
                  aria-label=${t("config.codes.revokeOf", { created: when(c.created_at) })}
                  @click=${() =>
                    void this.#run("revoke", async () => {
                      await api.request("DELETE", `${this.#base}/enrollment-codes/${c.id}`);
                      this.#notice = t("config.codes.revoked");
                      await this.#loadCodes();
                    })}>${t("config.codes.revoke")}</button>`
              : nothing
          }</td></tr>`,
      )}</tbody></table></div>`;
  }

  #render(): void {
    if (this.#disposed) return;
    const { i18n, formats, api } = this.#ctx;
    const t = i18n.t.bind(i18n);
    const busy = this.#busy !== null;
    const issued = this.#issued;
    render(
      html`<h2 id="config-installers">${t("config.install.title")}</h2>
        <p class="muted">${t("config.install.intro")}</p>
        ${this.#addressView()}
        ${this.#notice ? html`<p class="notice" role="status">${this.#notice}</p>` : nothing}
        ${refusalView(i18n, this.#error, "installers-error")}
        ${this.#enrollWarning.view()}
        <div class="install-grid">
          <div class="config-block">
            <h3>${t("config.install.linux")}</h3>
            <p class="muted">${t("config.install.linuxHelp")}</p>
            ${LINUX_ARCHES.every((arch) => this.#offered([linuxTarget(arch)])) ? nothing : this.#agentBuildView("linux-agent-build")}
            <div class="button-row">
              ${
                this.#offered(LINUX_ARCHES.map(linuxTarget))
                  ? html`<button type="button" data-testid="linux-script" ?disabled=${busy}
                @click=${() =>
                  void this.#enrollWarning.confirm(
                    () =>
                      void this.#run("script", async () => {
                        await this.#save(`${this.#base}/linux-install`, "text/x-shellscript");
                        await this.#loadCodes();
                      }),
                  )}>${t("config.install.linuxScript")}</button>`
                  : nothing
              }
              ${LINUX_ARCHES.filter((arch) => this.#offered([linuxTarget(arch)])).map(
                (
                  arch,
                ) => html`<button type="button" class="secondary" data-testid="linux-binary-${arch}" ?disabled=${busy}
                  @click=${() =>
                    void this.#run(arch, () =>
                      this.#save(`/api/edge/agent/linux-binary/${arch}`, "application/octet-stream"),
                    )}>${t("config.install.linuxBinary", { arch })}</button>`,
              )}
            </div>
          </div>
          <div class="config-block">
            <h3>${t("config.install.windows")}</h3>
            <p class="muted">${t("config.install.windowsHelp")}</p>
            ${
              this.#offered(["windows-x64"])
                ? html`<button type="button" data-testid="windows-installer" ?disabled=${busy}
              @click=${() => void this.#enrollWarning.confirm(() => void this.#run("msi", () => this.#windowsInstaller()))}>${t("config.install.windowsMsi")}</button>`
                : this.#agentBuildView("windows-agent-build")
            }
            ${this.#buildView()}
          </div>
        </div>
        <h3>${t("config.codes.title")}</h3>
        <p class="muted">${t("config.codes.help")}</p>
        <button type="button" data-testid="issue-code" ?disabled=${busy}
          @click=${() =>
            void this.#enrollWarning.confirm(
              () =>
                void this.#run("issue", async () => {
                  this.#issued = await api.post<IssuedEnrollmentCode>(`${this.#base}/enrollment-codes`);
                  await this.#loadCodes();
                }),
            )}>${t("config.codes.issue")}</button>
        ${
          issued
            ? html`<p class="notice" role="status" data-testid="issued-code">${t("config.codes.issued", { expires: formats.dateTime(issued.expires_at, this.#timeZone) })}
              <code>${issued.code}</code></p>`
            : nothing
        }
        ${this.#codesView()}`,
      this.#host,
    );
  }
}
