import { html, type TemplateResult } from "lit/html.js";
import type { I18n } from "../../i18n/i18n.ts";

export type RowActions = {
  id: string;
  name: string;
  /** The row awaiting the confirmation of its deletion, if any. */
  confirming: string | null;
  onEdit(): void;
  onAskDelete(): void;
  onDelete(): void;
  onCancelDelete(): void;
  extra?: TemplateResult;
};

/**
 * Edit and delete buttons of a table row; delete asks in place ("Delete X?"), without a modal
 * dialog. Accessible names carry the row's name, the visible text stays short.
 */
export function rowActionsView(a: RowActions, i18n: I18n): TemplateResult {
  if (a.confirming === a.id)
    return html`<span class="row-actions confirm" role="group" aria-label=${i18n.t("config.confirmDelete", { name: a.name })}>
      <span>${i18n.t("config.confirmDelete", { name: a.name })}</span>
      <button type="button" class="danger" @click=${() => a.onDelete()}>${i18n.t("config.delete")}</button>
      <button type="button" class="secondary" @click=${() => a.onCancelDelete()}>${i18n.t("form.cancel")}</button>
    </span>`;
  return html`<span class="row-actions">${a.extra ?? ""}
    <button type="button" class="secondary" @click=${() => a.onEdit()}
      aria-label=${i18n.t("config.editOf", { name: a.name })}>${i18n.t("config.edit")}</button>
    <button type="button" class="secondary" @click=${() => a.onAskDelete()}
      aria-label=${i18n.t("config.deleteOf", { name: a.name })}>${i18n.t("config.delete")}</button>
  </span>`;
}
