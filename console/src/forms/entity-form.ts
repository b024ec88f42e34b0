import { html, nothing, type TemplateResult } from "lit/html.js";
import type { I18n } from "../i18n/i18n.ts";
import type { FieldErrors } from "./field-errors.ts";
import type { FieldSpec, FormValues } from "./form-body.ts";

export type EntityForm = {
  /** Prefix of the inputs' ids, and the form's data-testid. */
  id: string;
  title: string;
  submitLabel: string;
  specs: readonly FieldSpec[];
  values: FormValues;
  errors: FieldErrors | null;
  busy: boolean;
  onSubmit(values: FormValues): void;
  /** Any input changed: the values so far (a protocol switch shows other settings). */
  onChange(values: FormValues): void;
  onCancel(): void;
};

/** The inputs' current values, by the specs' names. */
export function readValues(form: HTMLFormElement, specs: readonly FieldSpec[]): FormValues {
  const values: FormValues = {};
  for (const spec of specs) {
    const el = form.elements.namedItem(spec.name);
    if (el instanceof HTMLInputElement && spec.kind === "checkbox") values[spec.name] = el.checked;
    else if (el instanceof HTMLInputElement || el instanceof HTMLSelectElement) values[spec.name] = el.value;
  }
  return values;
}

const inputId = (form: string, name: string) => `${form}-${name.replace(/\./g, "-")}`;

function fieldView(form: EntityForm, spec: FieldSpec, i18n: I18n): TemplateResult {
  const id = inputId(form.id, spec.name);
  const value = form.values[spec.name] ?? (spec.kind === "checkbox" ? false : "");
  const error = form.errors?.fields.get(spec.name);
  const describedBy = [spec.help ? `${id}-help` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  const aria = { invalid: error ? "true" : "false", describedBy: describedBy || nothing };
  let control: TemplateResult;
  if (spec.kind === "select") {
    control = html`<select id=${id} name=${spec.name} aria-invalid=${aria.invalid} aria-describedby=${aria.describedBy}>
      ${spec.blank ? html`<option value="" ?selected=${value === ""}>${i18n.t(spec.blank)}</option>` : nothing}
      ${(spec.options ?? []).map(([v, label]) => html`<option value=${v} ?selected=${value === v}>${label}</option>`)}
    </select>`;
  } else if (spec.kind === "checkbox") {
    control = html`<input id=${id} name=${spec.name} type="checkbox" .checked=${value === true}
      aria-invalid=${aria.invalid} aria-describedby=${aria.describedBy}>`;
  } else {
    control = html`<input id=${id} name=${spec.name} type=${spec.kind === "password" ? "password" : "text"}
      inputmode=${spec.kind === "number" ? "decimal" : nothing}
      autocomplete=${spec.kind === "password" ? "new-password" : "off"}
      .value=${typeof value === "string" ? value : ""}
      aria-invalid=${aria.invalid} aria-describedby=${aria.describedBy}>`;
  }
  return html`<div class="field ${spec.kind === "checkbox" ? "field-check" : ""} ${error ? "invalid" : ""}" data-field=${spec.name}>
    <label for=${id}>${i18n.t(spec.label)}</label>
    ${control}
    ${spec.help ? html`<p class="field-help" id="${id}-help">${i18n.t(spec.help)}</p>` : nothing}
    ${error ? html`<p class="field-error" id="${id}-error" lang="en" data-testid="field-error">${error}</p>` : nothing}
  </div>`;
}

/**
 * A form that edits one API resource. The API's validation messages (in English, as the API
 * words them) are shown beside the fields they name, and the rest above the buttons.
 */
export function entityFormView(form: EntityForm, i18n: I18n): TemplateResult {
  const snapshot = (e: Event) => {
    const el = e.currentTarget;
    if (el instanceof HTMLFormElement) form.onChange({ ...form.values, ...readValues(el, form.specs) });
  };
  return html`<form class="entity-form" data-testid=${form.id} novalidate aria-labelledby="${form.id}-title"
      @change=${snapshot}
      @submit=${(e: Event) => {
        e.preventDefault();
        const el = e.currentTarget;
        if (el instanceof HTMLFormElement) form.onSubmit({ ...form.values, ...readValues(el, form.specs) });
      }}>
    <h3 id="${form.id}-title">${form.title}</h3>
    <div class="form-grid">${form.specs.map((spec) => fieldView(form, spec, i18n))}</div>
    ${
      form.errors && form.errors.other.length > 0
        ? html`<p class="error" role="alert" tabindex="-1" data-testid="form-error"><span>${i18n.t("form.refused")}</span>
          <span lang="en">${form.errors.other.join("; ")}</span></p>`
        : nothing
    }
    <div class="form-actions">
      <button type="submit" ?disabled=${form.busy}>${form.submitLabel}</button>
      <button type="button" class="secondary" @click=${() => form.onCancel()}>${i18n.t("form.cancel")}</button>
    </div>
  </form>`;
}

/** After a refused save: focus the first field the API named, or the form's message. */
export function focusFirstError(host: HTMLElement): void {
  host.querySelector<HTMLElement>('[aria-invalid="true"], [data-testid="form-error"]')?.focus();
}
