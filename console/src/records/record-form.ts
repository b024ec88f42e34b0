import { live } from "lit/directives/live.js";
import { html, nothing, type TemplateResult } from "lit/html.js";
import type { Asset } from "../api/types.ts";
import type { I18n } from "../i18n/i18n.ts";
import type { RecordField, RecordType } from "./record-types.ts";

/** The correction's reason, a field of the form beside the type's own. */
export const REASON_FIELD = "correction_reason";

export type RecordFormState = {
  type: RecordType;
  /** Shown in the inputs: empty for a new record, the corrected record's values for a correction. */
  values: ReadonlyMap<string, string>;
  /** The record being corrected, if any. */
  correcting: { id: string; label: string } | null;
  /** The API's message per field, shown beside it. */
  errors: ReadonlyMap<string, string>;
  busy: boolean;
};

function input(field: RecordField, value: string, assets: readonly Asset[], i18n: I18n, invalid: boolean) {
  const common = { id: `record-${field.name}`, describedBy: `record-${field.name}-error` };
  switch (field.kind) {
    case "choice":
      return html`<select id=${common.id} name=${field.name} aria-describedby=${common.describedBy} aria-invalid=${invalid}>
        ${field.options.map((o) => html`<option value=${o.value} ?selected=${o.value === value}>${i18n.t(o.labelKey)}</option>`)}
      </select>`;
    case "asset": {
      const choices = assets.filter((a) => a.asset_type === field.assetType);
      return html`<select id=${common.id} name=${field.name} aria-describedby=${common.describedBy} aria-invalid=${invalid}>
        <option value="">${i18n.t("records.choose")}</option>
        ${choices.map((a) => html`<option value=${a.id} ?selected=${a.id === value}>${a.name}</option>`)}
      </select>`;
    }
    case "number":
      return html`<input id=${common.id} name=${field.name} type="number" step="any" min=${field.min ?? nothing}
        max=${field.max ?? nothing} .value=${live(value)} aria-describedby=${common.describedBy} aria-invalid=${invalid}>`;
    case "instant":
      return html`<input id=${common.id} name=${field.name} type="datetime-local" .value=${live(value)}
        aria-describedby=${common.describedBy} aria-invalid=${invalid}>`;
    case "text":
      return field.long
        ? html`<textarea id=${common.id} name=${field.name} maxlength=${field.maxLength} rows="2" .value=${live(value)}
            aria-describedby=${common.describedBy} aria-invalid=${invalid}></textarea>`
        : html`<input id=${common.id} name=${field.name} maxlength=${field.maxLength} .value=${live(value)}
            aria-describedby=${common.describedBy} aria-invalid=${invalid}>`;
  }
}

function fieldView(
  field: Pick<RecordField, "name" | "labelKey" | "required">,
  control: TemplateResult,
  error: string | undefined,
  i18n: I18n,
) {
  return html`<div class="field">
    <label for="record-${field.name}">${i18n.t(field.labelKey)}${
      field.required ? nothing : html` <span class="muted">${i18n.t("records.optional")}</span>`
    }</label>
    ${control}
    <span class="field-error" id="record-${field.name}-error">${error ?? nothing}</span>
  </div>`;
}

/** The inputs' current values, by name. */
function readForm(form: HTMLFormElement): Map<string, string> {
  const values = new Map<string, string>();
  for (const [name, value] of new FormData(form)) if (typeof value === "string") values.set(name, value);
  return values;
}

/**
 * The entry form of one record type, or the correction of one record: the same fields, filled
 * with the record's values, and the reason. Browser validation is off (novalidate): the API's
 * messages, shown beside each field, are the only rules.
 */
export function recordForm(
  state: RecordFormState,
  assets: readonly Asset[],
  i18n: I18n,
  handlers: {
    submit(values: Map<string, string>): void;
    /** Any input changed: the values so far, to render the form with from then on. */
    edit(values: Map<string, string>): void;
    cancel(): void;
  },
): TemplateResult {
  const { type, values, errors, correcting } = state;
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    if (e.currentTarget instanceof HTMLFormElement) handlers.submit(readForm(e.currentTarget));
  };
  const edit = (e: Event) => {
    if (e.currentTarget instanceof HTMLFormElement) handlers.edit(readForm(e.currentTarget));
  };
  return html`<form class="record-form" novalidate @submit=${submit} @input=${edit} data-testid="record-form">
    ${
      correcting
        ? html`<p class="notice">${i18n.t("records.correcting", { record: correcting.label })}</p>`
        : nothing
    }
    <div class="form-grid">
      ${type.fields.map((f) =>
        fieldView(
          f,
          input(f, values.get(f.name) ?? "", assets, i18n, errors.has(f.name)),
          errors.get(f.name),
          i18n,
        ),
      )}
      ${
        correcting
          ? fieldView(
              { name: REASON_FIELD, labelKey: "records.reason", required: true },
              html`<textarea id="record-${REASON_FIELD}" name=${REASON_FIELD} rows="2" maxlength="2000" .value=${live(values.get(REASON_FIELD) ?? "")}
                aria-describedby="record-${REASON_FIELD}-error" aria-invalid=${errors.has(REASON_FIELD)}></textarea>`,
              errors.get(REASON_FIELD),
              i18n,
            )
          : nothing
      }
    </div>
    <div class="form-actions">
      <button type="submit" ?disabled=${state.busy}>${i18n.t(correcting ? "records.saveCorrection" : "records.save")}</button>
      ${
        correcting
          ? html`<button type="button" class="link" @click=${() => handlers.cancel()}>${i18n.t("common.cancel")}</button>`
          : nothing
      }
    </div>
  </form>`;
}
