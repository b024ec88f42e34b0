import { html, nothing, render, type TemplateResult } from "lit/html.js";
import type { AlertRule } from "../../api/types.ts";
import { errorText, loadingView, refusalView } from "../../app/load-status.ts";
import type { PageContext } from "../../app/page.ts";
import { entityFormView, focusFirstError } from "../../forms/entity-form.ts";
import type { FormValues } from "../../forms/form-body.ts";
import { type OpenForm, openForm, submitForm } from "../../forms/open-form.ts";
import { CONDITIONS } from "./choices.ts";
import { rowActionsView } from "./row-actions.ts";
import { newRuleValues, ruleSpecs, ruleValues } from "./rule-form.ts";

const symbolOf = (condition: AlertRule["condition"]) =>
  CONDITIONS.find(([c]) => c === condition)?.[1].split(" ")[0] ?? condition;

/**
 * The project's alert rules: created, edited, enabled or disabled, and deleted through
 * /api/alert-rules (POST, PUT /{id}, PATCH /{id}/toggle, DELETE /{id}).
 */
export class RulesSection {
  readonly #host: HTMLElement;
  readonly #ctx: PageContext;
  readonly #projectId: string;
  #rules: AlertRule[] | null = null;
  /** The rule edited (null: a new one), while the form is open. */
  #form: OpenForm<AlertRule | null> | null = null;
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
      this.#rules = await this.#ctx.api.get<AlertRule[]>("/api/alert-rules", { project_id: this.#projectId });
    } catch (err) {
      this.#error = errorText(err);
    }
    if (!this.#disposed) this.#render();
  }

  #open(rule: AlertRule | null): void {
    this.#form = openForm(rule, rule ? ruleValues(rule) : newRuleValues());
    this.#notice = null;
    this.#confirming = null;
    this.#render();
    this.#host.querySelector<HTMLElement>(".entity-form input")?.focus();
  }

  async #save(values: FormValues): Promise<void> {
    const form = this.#form;
    if (!form) return;
    const { api, i18n } = this.#ctx;
    const rule = form.target;
    const saved = await submitForm(
      form,
      ruleSpecs(i18n),
      values,
      (body) => {
        const withProject = { ...body, project_id: this.#projectId };
        return rule
          ? api.request("PUT", `/api/alert-rules/${rule.id}`, withProject)
          : api.post("/api/alert-rules", withProject);
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
    this.#notice = i18n.t("config.saved", { name: String(values.name ?? "") });
    await this.#load();
  }

  async #change(run: () => Promise<unknown>, notice: string): Promise<void> {
    this.#confirming = null;
    this.#notice = null;
    try {
      await run();
      this.#notice = notice;
      this.#error = null;
    } catch (err) {
      this.#error = errorText(err);
    }
    await this.#load();
  }

  #row(rule: AlertRule): TemplateResult {
    const { i18n, formats, api } = this.#ctx;
    const t = i18n.t.bind(i18n);
    const toggle = html`<button type="button" class="secondary"
      aria-label=${t(rule.is_enabled ? "config.rule.disableOf" : "config.rule.enableOf", { name: rule.name })}
      @click=${() =>
        void this.#change(
          () => api.request("PATCH", `/api/alert-rules/${rule.id}/toggle`),
          t(rule.is_enabled ? "config.rule.disabled" : "config.rule.enabled", { name: rule.name }),
        )}>${t(rule.is_enabled ? "config.rule.disable" : "config.rule.enable")}</button>`;
    return html`<tr data-rule=${rule.id}>
      <td>${rule.name}</td><td>${rule.variable_alias}</td>
      <td class="num">${symbolOf(rule.condition)} ${formats.number(rule.threshold)}</td>
      <td><span class="severity-${rule.severity}">${t(`severity.${rule.severity}`)}</span></td>
      <td class="num">${formats.number(rule.delay_seconds)}</td>
      <td>${t(rule.is_enabled ? "config.on" : "config.off")}</td>
      <td>${rowActionsView(
        {
          id: rule.id,
          name: rule.name,
          confirming: this.#confirming,
          onEdit: () => this.#open(rule),
          onAskDelete: () => {
            this.#confirming = rule.id;
            this.#render();
          },
          onDelete: () =>
            void this.#change(
              () => api.request("DELETE", `/api/alert-rules/${rule.id}`),
              t("config.deleted", { name: rule.name }),
            ),
          onCancelDelete: () => {
            this.#confirming = null;
            this.#render();
          },
          extra: toggle,
        },
        i18n,
      )}</td>
    </tr>`;
  }

  #render(): void {
    const { i18n } = this.#ctx;
    const t = i18n.t.bind(i18n);
    const rules = this.#rules;
    const form = this.#form;
    render(
      html`<h2 id="config-rules">${t("config.rule.title")}</h2>
        ${this.#notice ? html`<p class="notice" role="status">${this.#notice}</p>` : nothing}
        ${refusalView(i18n, this.#error)}
        ${
          rules === null
            ? loadingView(i18n)
            : rules.length === 0
              ? html`<p class="muted">${t("config.rule.none")}</p>`
              : html`<div class="table-scroll"><table data-testid="rules">
                <caption class="visually-hidden">${t("config.rule.title")}</caption>
                <thead><tr><th scope="col">${t("config.rule.name")}</th><th scope="col">${t("config.rule.variable")}</th>
                  <th scope="col">${t("config.rule.condition")}</th><th scope="col">${t("config.rule.severity")}</th>
                  <th scope="col">${t("config.rule.delay")}</th><th scope="col">${t("config.state")}</th>
                  <th scope="col">${t("config.actions")}</th></tr></thead>
                <tbody>${rules.map((r) => this.#row(r))}</tbody></table></div>`
        }
        ${
          form
            ? entityFormView(
                {
                  id: "rule-form",
                  title: form.target
                    ? t("config.rule.editTitle", { name: form.target.name })
                    : t("config.rule.newTitle"),
                  submitLabel: t(form.target ? "config.save" : "config.create"),
                  specs: ruleSpecs(i18n),
                  values: form.values,
                  errors: form.errors,
                  busy: form.busy,
                  onSubmit: (values) => void this.#save(values),
                  onChange: (values) => {
                    form.values = values;
                  },
                  onCancel: () => {
                    this.#form = null;
                    this.#render();
                  },
                },
                i18n,
              )
            : html`<button type="button" @click=${() => this.#open(null)}>${t("config.rule.add")}</button>`
        }`,
      this.#host,
    );
  }
}
