import { html, nothing, render, type TemplateResult } from "lit/html.js";
import { ApiError } from "../../api/api-error.ts";
import type { BrowseResult, FieldTree, TestReadResult } from "../../api/types.ts";
import { errorText, loadingView } from "../../app/load-status.ts";
import type { PageContext } from "../../app/page.ts";
import type { MessageKey } from "../../i18n/i18n.ts";

type Device = FieldTree["assets"][number]["devices"][number];
/** A folder of the OPC UA browse path: null is the Objects folder. */
type Step = { nodeId: string | null; name: string };

/** How the API's refusals of an agent request read, before its own message. */
const LEADS: Record<string, MessageKey> = {
  AgentOffline: "agents.check.offline",
  AgentTimeout: "agents.check.timeout",
};

/**
 * Checks a device through the project's agent, with its settings as they are now (deployed or
 * not): POST /api/edge/devices/{id}/test-read reads each enabled variable once, and for OPC UA
 * POST /api/edge/devices/{id}/browse lists a node's children. Both need the agent connected
 * (409 AgentOffline) and answering (504 AgentTimeout); the page says which.
 */
export class DeviceCheckPanel {
  readonly #host: HTMLElement;
  readonly #ctx: PageContext;
  readonly #projectId: string;
  #tree: FieldTree | null = null;
  #deviceId = "";
  #busy: "read" | "browse" | null = null;
  #read: TestReadResult | null = null;
  #path: Step[] = [];
  #browse: BrowseResult | null = null;
  #refusal: { lead: MessageKey; message: string } | null = null;
  #disposed = false;

  constructor(host: HTMLElement, ctx: PageContext, projectId: string) {
    this.#host = host;
    this.#ctx = ctx;
    this.#projectId = projectId;
    this.#render();
    void this.#load();
  }

  destroy(): void {
    this.#disposed = true;
  }

  async #load(): Promise<void> {
    try {
      this.#tree = await this.#ctx.api.get<FieldTree>(`/api/edge/projects/${this.#projectId}/full`);
      this.#deviceId = this.#devices()[0]?.id ?? "";
    } catch (err) {
      this.#refusal = {
        lead: "agents.check.refused",
        message: errorText(err),
      };
    }
    this.#render();
  }

  #devices(): Device[] {
    return this.#tree?.assets.flatMap((a) => a.devices) ?? [];
  }

  #device(): Device | undefined {
    return this.#devices().find((d) => d.id === this.#deviceId);
  }

  async #ask(kind: "read" | "browse", run: () => Promise<void>): Promise<void> {
    this.#busy = kind;
    this.#refusal = null;
    this.#render();
    try {
      await run();
    } catch (err) {
      const lead = (err instanceof ApiError && LEADS[err.code]) || "agents.check.refused";
      this.#refusal = { lead, message: errorText(err) };
    }
    this.#busy = null;
    this.#render();
  }

  #testRead(): Promise<void> {
    this.#browse = null;
    return this.#ask("read", async () => {
      this.#read = null;
      this.#read = await this.#ctx.api.post<TestReadResult>(`/api/edge/devices/${this.#deviceId}/test-read`);
    });
  }

  #browseTo(path: Step[]): Promise<void> {
    this.#read = null;
    const nodeId = path.at(-1)?.nodeId ?? null;
    return this.#ask("browse", async () => {
      this.#browse = await this.#ctx.api.post<BrowseResult>(`/api/edge/devices/${this.#deviceId}/browse`, {
        node_id: nodeId,
      });
      this.#path = path;
    });
  }

  #readView(r: TestReadResult): TemplateResult {
    const { i18n, formats } = this.#ctx;
    const t = i18n.t.bind(i18n);
    return html`<div data-testid="test-read-result" data-ok=${String(r.ok)}>
      ${
        r.ok
          ? html`<p role="status">${t("agents.check.readIn", { ms: formats.number(r.duration_ms) })}</p>`
          : html`<p class="error" role="alert"><span>${t("agents.check.unreadable")}</span> <span lang="en">${r.error ?? ""}</span></p>`
      }
      ${
        r.results.length === 0
          ? nothing
          : html`<div class="table-scroll"><table data-testid="test-read-results">
            <caption>${t("agents.check.results")}</caption>
            <thead><tr><th scope="col">${t("asset.variable")}</th><th scope="col">${t("agents.check.value")}</th>
              <th scope="col">${t("agents.check.quality")}</th><th scope="col">${t("agents.check.detail")}</th></tr></thead>
            <tbody>${r.results.map(
              (x) => html`<tr data-variable=${x.alias}><td>${x.alias}</td>
                <td class="num value">${x.value === null ? "—" : formats.number(x.value)}</td>
                <td><span class="badge read-${x.quality}">${t(`agents.check.quality.${x.quality}`)}</span></td>
                <td lang="en">${x.detail ?? ""}</td></tr>`,
            )}</tbody></table></div>`
      }
    </div>`;
  }

  #browseView(b: BrowseResult): TemplateResult {
    const { i18n } = this.#ctx;
    const t = i18n.t.bind(i18n);
    const path = this.#path;
    const busy = this.#busy !== null;
    return html`<div data-testid="browse-result">
      <nav aria-label=${t("agents.browse.path")}><ol class="breadcrumb">
        <li><button type="button" class="link" ?disabled=${busy} @click=${() => void this.#browseTo([])}>${t("agents.browse.root")}</button></li>
        ${path.map(
          (step, i) =>
            html`<li><button type="button" class="link" ?disabled=${busy} aria-current=${i === path.length - 1 ? "location" : "false"}
              @click=${() => void this.#browseTo(path.slice(0, i + 1))}>${step.name}</button></li>`,
        )}
      </ol></nav>
      ${b.ok ? nothing : html`<p class="error" role="alert"><span>${t("agents.check.unreadable")}</span> <span lang="en">${b.error ?? ""}</span></p>`}
      ${
        b.children.length === 0
          ? html`<p class="muted">${t("agents.browse.empty")}</p>`
          : html`<div class="table-scroll"><table data-testid="browse-nodes">
            <caption class="visually-hidden">${t("agents.browse.nodes")}</caption>
            <thead><tr><th scope="col">${t("agents.browse.name")}</th><th scope="col">${t("agents.browse.class")}</th>
              <th scope="col">${t("agents.browse.dataType")}</th><th scope="col">${t("agents.browse.nodeId")}</th></tr></thead>
            <tbody>${b.children.map(
              (c) => html`<tr data-node=${c.node_id}>
                <td>${
                  c.node_class === "Variable"
                    ? c.browse_name
                    : html`<button type="button" class="link" ?disabled=${busy}
                        aria-label=${t("agents.browse.open", { name: c.browse_name })}
                        @click=${() => void this.#browseTo([...path, { nodeId: c.node_id, name: c.browse_name }])}>${c.browse_name}</button>`
                }</td>
                <td>${c.node_class}</td><td>${c.data_type ?? ""}</td><td><code>${c.node_id}</code></td></tr>`,
            )}</tbody></table></div>`
      }
    </div>`;
  }

  #render(): void {
    if (this.#disposed) return;
    const { i18n } = this.#ctx;
    const t = i18n.t.bind(i18n);
    const tree = this.#tree;
    const device = this.#device();
    const busy = this.#busy !== null;
    render(
      html`<h2 id="agents-check">${t("agents.check.title")}</h2>
        <p class="muted">${t("agents.check.help")}</p>
        ${
          tree === null
            ? loadingView(i18n)
            : this.#devices().length === 0
              ? html`<p class="muted" data-testid="check-none">${t("agents.check.noDevices")}</p>`
              : html`<div class="filters">
                <label>${t("agents.device")}
                  <select data-testid="check-device" @change=${(e: Event) => {
                    this.#deviceId = (e.target as HTMLSelectElement).value;
                    this.#read = null;
                    this.#browse = null;
                    this.#path = [];
                    this.#refusal = null;
                    this.#render();
                  }}>
                    ${tree.assets
                      .filter((a) => a.devices.length > 0)
                      .map(
                        (a) =>
                          html`<optgroup label=${a.name}>${a.devices.map(
                            (d) =>
                              html`<option value=${d.id} ?selected=${d.id === this.#deviceId}>${d.name} (${d.protocol})</option>`,
                          )}</optgroup>`,
                      )}
                  </select></label>
                <button type="button" data-testid="test-read" ?disabled=${busy} aria-busy=${this.#busy === "read" ? "true" : "false"}
                  @click=${() => void this.#testRead()}>${t(this.#busy === "read" ? "agents.check.reading" : "agents.check.read")}</button>
                ${
                  device?.protocol === "opc_ua"
                    ? html`<button type="button" class="secondary" data-testid="browse" ?disabled=${busy}
                        @click=${() => void this.#browseTo([])}>${t("agents.browse.start")}</button>`
                    : nothing
                }
              </div>`
        }
        ${
          this.#refusal
            ? html`<p class="error" role="alert" data-testid="check-refused"><span>${t(this.#refusal.lead)}</span>
              <span lang="en">${this.#refusal.message}</span></p>`
            : nothing
        }
        ${this.#read ? this.#readView(this.#read) : nothing}
        ${this.#browse ? this.#browseView(this.#browse) : nothing}`,
      this.#host,
    );
  }
}
