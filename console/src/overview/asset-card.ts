import { html, nothing, svg, type TemplateResult } from "lit/html.js";
import type { PageContext } from "../app/page.ts";
import type { AssetState } from "./asset-state.ts";
import type { LiveAsset, LiveVariable } from "./overview-model.ts";
import { SPARK_HEIGHT, SPARK_WIDTH, sparkPath } from "./sparkline.ts";

/** The path drawn for each variable's sparkline at a version: redraws compute only what moved. */
const drawn = new WeakMap<LiveVariable, { version: number; d: string }>();

function pathOf(key: LiveVariable): string {
  const kept = drawn.get(key);
  if (kept && kept.version === key.version) return kept.d;
  const d = sparkPath(key.spark);
  drawn.set(key, { version: key.version, d });
  return d;
}

/**
 * One asset: its state (in alarm, reading, stale, no data) with its newest reading's age, and each
 * key variable's value with a sparkline of the window. The sparkline is decorative (aria-hidden):
 * the value beside it is what a screen reader reads.
 */
export function assetCard(
  ctx: PageContext,
  projectId: string,
  asset: LiveAsset,
  state: AssetState,
  /** How long ago its newest reading was, as shown; null when it has none. */
  age: string | null,
): TemplateResult {
  const { i18n, formats } = ctx;
  const href = `#/projects/${projectId}/assets/${asset.id}`;
  return html`<li class="ov-asset state-${state}" data-asset=${asset.id}>
    <div class="ov-asset-head">
      <a href=${href} class="ov-asset-name">${asset.name}</a>
      <span class="muted">${i18n.t(`assetType.${asset.assetType}`)}</span>
      <span class="ov-state state-${state}" data-testid="asset-state">${i18n.t(`overview.state.${state}`)}</span>
    </div>
    <p class="muted ov-age">${
      age === null ? i18n.t("overview.neverRead") : i18n.t("overview.lastReading", { age })
    }</p>
    ${
      asset.keys.length === 0
        ? nothing
        : html`<dl class="ov-vars">${asset.keys.map(
            (k) => html`<div class="ov-var" data-variable=${k.variable}>
              <dt>${k.variable}</dt>
              <dd><span class="value num">${k.value === null ? "—" : formats.number(k.value)}</span>
                <span class="unit">${k.unit ?? ""}</span></dd>
              <dd class="ov-spark">${svg`<svg viewBox="0 0 ${SPARK_WIDTH} ${SPARK_HEIGHT}" preserveAspectRatio="none" aria-hidden="true" focusable="false"><path d=${pathOf(k)} /></svg>`}</dd>
            </div>`,
          )}</dl>`
    }
    ${
      asset.variableCount > asset.keys.length
        ? html`<a href=${href} class="ov-more">${i18n.t("overview.allVariables", { count: formats.number(asset.variableCount) })}</a>`
        : nothing
    }
  </li>`;
}
