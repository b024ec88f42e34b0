import { html, type TemplateResult } from "lit/html.js";
import type { Permission } from "../../../shared/permissions.ts";
import type { MessageKey } from "../i18n/i18n.ts";
import type { PageContext } from "./page.ts";

/** One page of a section, as its tab names it: the page's path and the grants it requires. */
export type SectionTab = { path: string; labelKey: MessageKey; requires: readonly Permission[] };

/**
 * The tabs of a section (Compliance, Administration): links to its pages the role may use, the
 * current one marked. The pages' own PageDefs take their path and grants from the same tab.
 */
export function sectionTabs(
  ctx: PageContext,
  labelKey: MessageKey,
  tabs: readonly SectionTab[],
  current: SectionTab,
): TemplateResult {
  const allowed = tabs.filter((tab) => tab.requires.every((p) => ctx.can(p)));
  return html`<nav class="section-tabs" aria-label=${ctx.i18n.t(labelKey)}><ul class="tab-list">
    ${allowed.map(
      (tab) =>
        html`<li><a href="#${tab.path}" aria-current=${tab === current ? "page" : "false"}>${ctx.i18n.t(tab.labelKey)}</a></li>`,
    )}
  </ul></nav>`;
}
