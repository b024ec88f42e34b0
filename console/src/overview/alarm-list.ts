import { html, nothing, type TemplateResult } from "lit/html.js";
import type { Alarm } from "../api/types.ts";
import type { PageContext } from "../app/page.ts";
import type { LiveProject } from "./overview-model.ts";

/** Alarms shown per project; the rest are on the Alarms page, a link away. */
export const ALARMS_SHOWN = 8;

/**
 * A project's listed alarms, most severe then newest first, each acknowledgeable in place by
 * roles that may (`onAck` calls the API's acknowledgement, POST /api/alarms/{id}/ack).
 */
export function alarmList(
  ctx: PageContext,
  project: LiveProject,
  onAck: (alarm: Alarm) => void,
  pending: ReadonlySet<string>,
): TemplateResult {
  const { i18n, formats } = ctx;
  const canAck = ctx.can("alarms:ack");
  const assetName = (id: string | null) =>
    id === null ? null : (project.assets.find((a) => a.id === id)?.name ?? null);
  const shown = project.alarms.slice(0, ALARMS_SHOWN);
  const rest = project.alarms.length - shown.length;
  if (shown.length === 0)
    return html`<p class="muted" data-testid="no-alarms">${i18n.t("overview.noAlarms")}</p>`;
  return html`<ul class="ov-alarms" data-testid="alarms">
      ${shown.map((a) => {
        const where = assetName(a.asset_id);
        return html`<li class="ov-alarm" data-alarm=${a.id}>
          <span class="ov-alarm-text"><span class="badge severity-${a.severity}">${i18n.t(`severity.${a.severity}`)}</span>
            ${a.message}
            <span class="muted">${where ? html`${where} · ` : nothing}${formats.dateTime(a.timestamp, project.timezone)}
              · ${a.active ? i18n.t("alarms.stateActive") : i18n.t("alarms.stateReturned")}${a.acknowledged ? html` · ${i18n.t("alarms.acknowledged")}` : nothing}</span></span>
          ${
            canAck && !a.acknowledged
              ? html`<button type="button" ?disabled=${pending.has(a.id)} @click=${() => onAck(a)}
                  aria-label=${i18n.t("alarms.ackOf", { message: a.message })}>${i18n.t("alarms.ack")}</button>`
              : nothing
          }
        </li>`;
      })}
    </ul>
    ${
      rest > 0
        ? html`<p><a href="#/alarms?project=${project.project_id}">${i18n.t("overview.moreAlarms", { count: formats.number(rest) })}</a></p>`
        : nothing
    }`;
}
