import { html, nothing, type TemplateResult } from "lit/html.js";
import type { Alarm } from "../api/types.ts";
import type { I18n } from "../i18n/i18n.ts";
import { alarmText } from "./alarm-text.ts";

/**
 * The newest alarm raised while the console is open, until dismissed or seen on the alarms page.
 * role="alert" makes screen readers announce it.
 */
export class AlarmBanner {
  #alarm: Alarm | null = null;
  #count = 0;
  readonly #changed: () => void;

  constructor(changed: () => void) {
    this.#changed = changed;
  }

  raised(alarm: Alarm): void {
    this.#alarm = alarm;
    this.#count++;
    this.#changed();
  }

  dismiss(): void {
    this.#alarm = null;
    this.#count = 0;
    this.#changed();
  }

  view(i18n: I18n): TemplateResult | typeof nothing {
    const alarm = this.#alarm;
    if (!alarm) return nothing;
    return html`<div class="alarm-banner severity-${alarm.severity}" role="alert" data-testid="alarm-banner">
      <strong>${i18n.t("banner.newAlarm")}</strong>
      <span>${i18n.t(`severity.${alarm.severity}`)} · ${alarmText(alarm, i18n)}</span>
      ${this.#count > 1 ? html`<span>${i18n.t("banner.more", { count: this.#count - 1 })}</span>` : nothing}
      <a href="#/alarms?project=${alarm.project_id}" @click=${() => this.dismiss()}>${i18n.t("banner.view")}</a>
      <button type="button" class="link" @click=${() => this.dismiss()}>${i18n.t("banner.dismiss")}</button>
    </div>`;
  }
}
