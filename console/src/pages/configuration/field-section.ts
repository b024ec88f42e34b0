import { html, nothing, render, type TemplateResult } from "lit/html.js";
import type { EdgeVariable, FieldTree } from "../../api/types.ts";
import { errorText, loadingView, refusalView } from "../../app/load-status.ts";
import type { PageContext } from "../../app/page.ts";
import { entityFormView, focusFirstError } from "../../forms/entity-form.ts";
import type { FieldSpec, FormValues } from "../../forms/form-body.ts";
import { type OpenForm, openForm, submitForm } from "../../forms/open-form.ts";
import { isModbus } from "./choices.ts";
import { deviceSpecs, deviceValues, newDeviceValues } from "./device-form.ts";
import { rowActionsView } from "./row-actions.ts";
import { newVariableValues, variableSpecs, variableValues } from "./variable-form.ts";

type Asset = FieldTree["assets"][number];
type Device = Asset["devices"][number];
type Target =
  | { kind: "device"; assetId: string; device: Device | null }
  | { kind: "variable"; device: Device; variable: EdgeVariable | null };

/**
 * The project's devices by asset, and the variables of the device chosen: created, edited and
 * deleted through POST /api/edge/assets/{id}/devices, PUT and DELETE /api/edge/devices/{id},
 * POST /api/edge/devices/{id}/variables, PUT and DELETE /api/edge/variables/{id}.
 */
export class FieldSection {
  readonly #host: HTMLElement;
  readonly #ctx: PageContext;
  readonly #projectId: string;
  #tree: FieldTree | null = null;
  /** The device whose variables are shown. */
  #deviceId: string | null = null;
  #form: OpenForm<Target> | null = null;
  #confirming: string | null = null;
  #notice: string | null = null;
  #error: string | null = null;
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
    } catch (err) {
      this.#error = errorText(err);
    }
    if (!this.#disposed) this.#render();
  }

  #specs(target: Target, values: FormValues): readonly FieldSpec[] {
    return target.kind === "device" ? deviceSpecs(values) : variableSpecs(target.device.protocol);
  }

  #open(target: Target, values: FormValues): void {
    this.#form = openForm(target, values);
    this.#notice = null;
    this.#confirming = null;
    this.#render();
    this.#host.querySelector<HTMLElement>(".entity-form input, .entity-form select")?.focus();
  }

  async #save(values: FormValues): Promise<void> {
    const form = this.#form;
    if (!form) return;
    const { api } = this.#ctx;
    const target = form.target;
    const saved = await submitForm(
      form,
      this.#specs(target, values),
      values,
      (body) => {
        if (target.kind === "device")
          return target.device
            ? api.request("PUT", `/api/edge/devices/${target.device.id}`, body)
            : api.post(`/api/edge/assets/${target.assetId}/devices`, body);
        return target.variable
          ? api.request("PUT", `/api/edge/variables/${target.variable.id}`, body)
          : api.post(`/api/edge/devices/${target.device.id}/variables`, body);
      },
      () => this.#render(),
    );
    if (this.#disposed || this.#form !== form) return;
    if (!saved) {
      this.#render();
      focusFirstError(this.#host);
      return;
    }
    this.#form = null;
    const name = String(values.name ?? values.alias ?? "");
    this.#notice = this.#ctx.i18n.t("config.saved", { name });
    await this.#load();
  }

  async #delete(path: string, name: string, id: string): Promise<void> {
    this.#confirming = null;
    this.#notice = null;
    try {
      await this.#ctx.api.request("DELETE", path);
      this.#notice = this.#ctx.i18n.t("config.deleted", { name });
      if (id === this.#deviceId) this.#deviceId = null;
      this.#error = null;
    } catch (err) {
      this.#error = errorText(err);
    }
    await this.#load();
  }

  #formView(form: OpenForm<Target>): TemplateResult {
    const { i18n } = this.#ctx;
    const target = form.target;
    const existing = target.kind === "device" ? target.device : target.variable;
    const title =
      target.kind === "device"
        ? target.device
          ? i18n.t("config.device.editTitle", { name: target.device.name })
          : i18n.t("config.device.newTitle")
        : target.variable
          ? i18n.t("config.variable.editTitle", { name: target.variable.alias })
          : i18n.t("config.variable.newTitle", { device: target.device.name });
    return entityFormView(
      {
        id: `${target.kind}-form`,
        title,
        submitLabel: i18n.t(existing ? "config.save" : "config.create"),
        specs: this.#specs(target, form.values),
        values: form.values,
        errors: form.errors,
        busy: form.busy,
        onSubmit: (values) => void this.#save(values),
        onChange: (values) => {
          form.values = values;
          this.#render();
        },
        onCancel: () => {
          this.#form = null;
          this.#render();
        },
      },
      i18n,
    );
  }

  #actions(id: string, name: string, edit: () => void, path: string, extra?: TemplateResult) {
    return rowActionsView(
      {
        id,
        name,
        confirming: this.#confirming,
        onEdit: edit,
        onAskDelete: () => {
          this.#confirming = id;
          this.#render();
        },
        onDelete: () => void this.#delete(path, name, id),
        onCancelDelete: () => {
          this.#confirming = null;
          this.#render();
        },
        ...(extra ? { extra } : {}),
      },
      this.#ctx.i18n,
    );
  }

  #variablesView(device: Device): TemplateResult {
    const { i18n } = this.#ctx;
    const t = i18n.t.bind(i18n);
    const form = this.#form;
    const modbus = isModbus(device.protocol);
    return html`<div class="config-variables" data-testid="variables" data-device=${device.id}>
      <h4>${t("config.variable.titleOf", { device: device.name })}</h4>
      ${
        device.variables.length === 0
          ? html`<p class="muted">${t("config.variable.none")}</p>`
          : html`<div class="table-scroll"><table>
            <caption class="visually-hidden">${t("config.variable.titleOf", { device: device.name })}</caption>
            <thead><tr><th scope="col">${t("config.variable.alias")}</th><th scope="col">${t("config.variable.dataType")}</th>
              <th scope="col">${t("config.variable.address")}</th><th scope="col">${t("config.variable.unit")}</th>
              <th scope="col">${t("config.variable.pollInterval")}</th><th scope="col">${t("config.state")}</th>
              <th scope="col">${t("config.actions")}</th></tr></thead>
            <tbody>${device.variables.map(
              (v) => html`<tr data-variable=${v.alias}>
                <td>${v.alias}</td><td>${v.data_type}</td>
                <td>${modbus ? `${v.register_kind} ${v.register_address ?? "—"}` : (v.address ?? "—")}</td>
                <td>${v.unit ?? ""}</td><td class="num">${this.#ctx.formats.number(v.poll_interval_ms)}</td>
                <td>${t(v.enabled ? "config.on" : "config.off")}</td>
                <td>${this.#actions(v.id, v.alias, () => this.#open({ kind: "variable", device, variable: v }, variableValues(v)), `/api/edge/variables/${v.id}`)}</td>
              </tr>`,
            )}</tbody></table></div>`
      }
      ${
        form?.target.kind === "variable" && form.target.device.id === device.id
          ? this.#formView(form)
          : html`<button type="button" data-testid="add-variable"
              @click=${() => this.#open({ kind: "variable", device, variable: null }, newVariableValues(device.protocol))}
              >${t("config.variable.add")}</button>`
      }
    </div>`;
  }

  #assetView(asset: Asset): TemplateResult {
    const { i18n } = this.#ctx;
    const t = i18n.t.bind(i18n);
    const form = this.#form;
    const shown = asset.devices.find((d) => d.id === this.#deviceId);
    const address = (d: Device) =>
      `${d.host ?? "—"}${d.port === null ? "" : `:${d.port}`}${d.slave_id === null ? "" : ` · ${d.slave_id}`}`;
    return html`<div class="config-block" data-asset=${asset.id}>
      <h3>${asset.name} <span class="badge">${t(`assetType.${asset.asset_type}`)}</span></h3>
      ${
        asset.devices.length === 0
          ? html`<p class="muted">${t("config.device.none")}</p>`
          : html`<div class="table-scroll"><table data-testid="devices">
            <caption class="visually-hidden">${t("config.device.caption", { asset: asset.name })}</caption>
            <thead><tr><th scope="col">${t("config.device.name")}</th><th scope="col">${t("config.device.protocol")}</th>
              <th scope="col">${t("config.device.address")}</th><th scope="col">${t("config.state")}</th>
              <th scope="col">${t("config.variable.count")}</th><th scope="col">${t("config.actions")}</th></tr></thead>
            <tbody>${asset.devices.map(
              (d) => html`<tr data-device=${d.id} class=${d === shown ? "selected" : ""}>
                <td>${d.name}</td><td>${d.protocol}</td><td>${address(d)}</td>
                <td>${t(d.enabled ? "config.on" : "config.off")}</td>
                <td class="num">${this.#ctx.formats.number(d.variables.length)}</td>
                <td>${this.#actions(
                  d.id,
                  d.name,
                  () => this.#open({ kind: "device", assetId: asset.id, device: d }, deviceValues(d)),
                  `/api/edge/devices/${d.id}`,
                  html`<button type="button" class="secondary" aria-pressed=${d === shown ? "true" : "false"}
                    aria-label=${t("config.variable.of", { device: d.name })}
                    @click=${() => {
                      this.#deviceId = d === shown ? null : d.id;
                      this.#render();
                    }}>${t("config.variable.show")}</button>`,
                )}</td>
              </tr>`,
            )}</tbody></table></div>`
      }
      ${
        form?.target.kind === "device" && form.target.assetId === asset.id
          ? this.#formView(form)
          : html`<button type="button" aria-label=${t("config.device.addTo", { asset: asset.name })}
              @click=${() => this.#open({ kind: "device", assetId: asset.id, device: null }, newDeviceValues())}
              >${t("config.device.add")}</button>`
      }
      ${shown ? this.#variablesView(shown) : nothing}
    </div>`;
  }

  #render(): void {
    const { i18n } = this.#ctx;
    const tree = this.#tree;
    render(
      html`<h2 id="config-field">${i18n.t("config.field.title")}</h2>
        ${this.#notice ? html`<p class="notice" role="status">${this.#notice}</p>` : nothing}
        ${refusalView(i18n, this.#error)}
        ${
          tree === null
            ? loadingView(i18n)
            : tree.assets.length === 0
              ? html`<p>${i18n.t("config.field.noAssets")}</p>`
              : tree.assets.map((a) => this.#assetView(a))
        }`,
      this.#host,
    );
  }
}
