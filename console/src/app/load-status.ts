import { html, nothing, type TemplateResult } from "lit/html.js";
import type { I18n } from "../i18n/i18n.ts";

/** What a failed request says: the API's message (ApiError), or the error's own. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Shown where data will be once its request answers. */
export function loadingView(i18n: I18n): TemplateResult {
  return html`<p aria-busy="true">${i18n.t("common.loading")}</p>`;
}

/** The API's refusal of a section's request or action, in the API's words (English), if any. */
export function refusalView(
  i18n: I18n,
  message: string | null,
  testId?: string,
): TemplateResult | typeof nothing {
  if (message === null) return nothing;
  return html`<p class="error" role="alert" data-testid=${testId ?? nothing}><span>${i18n.t("config.refused")}</span> <span lang="en">${message}</span></p>`;
}
