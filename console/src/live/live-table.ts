import type { Formats } from "../i18n/format.ts";
import type { I18n } from "../i18n/i18n.ts";
import { type Quality, qualityOf } from "./quality.ts";

export type LiveRow = {
  variable: string;
  unit: string | null;
  deviceId: string | null;
  pollMs: number | null;
  enabled: boolean;
};

type RowState = LiveRow & {
  value: number | null;
  ts: number | null;
  cells: { value: HTMLElement; unit: HTMLElement; quality: HTMLElement; age: HTMLElement };
  quality: Quality | null;
};

/**
 * The asset's variables with live value, unit, quality and age. Built and updated with plain DOM
 * calls, not templates: stream messages only record the newest value, and one animation frame
 * writes the changed cells, so a thousand updates a second cost at most one write per cell per
 * frame. Ages and qualities are refreshed once a second.
 */
export class LiveTable {
  readonly element: HTMLTableElement;
  readonly #body: HTMLTableSectionElement;
  readonly #rows = new Map<string, RowState>();
  readonly #dirty = new Set<RowState>();
  readonly #i18n: I18n;
  readonly #formats: Formats;
  readonly #onTrend: (variable: string) => void;
  #deviceStates = new Map<string, "ok" | "failing" | "disabled" | "unsupported">();
  #frame = 0;
  #ticker: ReturnType<typeof setInterval> | undefined;

  constructor(i18n: I18n, formats: Formats, onTrend: (variable: string) => void) {
    this.#i18n = i18n;
    this.#formats = formats;
    this.#onTrend = onTrend;
    this.element = document.createElement("table");
    this.element.className = "live-table";
    const caption = this.element.createCaption();
    caption.textContent = i18n.t("asset.liveCaption");
    const head = this.element.createTHead().insertRow();
    for (const key of [
      "asset.variable",
      "asset.value",
      "asset.unit",
      "asset.quality",
      "asset.age",
      "asset.trend",
    ] as const) {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = i18n.t(key);
      head.appendChild(th);
    }
    this.#body = this.element.createTBody();
  }

  start(): void {
    this.#ticker = setInterval(() => this.#tick(), 1000);
  }

  stop(): void {
    clearInterval(this.#ticker);
    cancelAnimationFrame(this.#frame);
  }

  get variables(): string[] {
    return [...this.#rows.keys()];
  }

  unitOf(variable: string): string | null {
    return this.#rows.get(variable)?.unit ?? null;
  }

  addRow(row: LiveRow): void {
    if (this.#rows.has(row.variable)) return;
    const tr = this.#body.insertRow();
    tr.dataset.variable = row.variable;
    const name = document.createElement("th");
    name.scope = "row";
    name.textContent = row.variable;
    tr.appendChild(name);
    const cell = (cls: string) => {
      const td = tr.insertCell();
      td.className = cls;
      return td;
    };
    const value = cell("value num");
    value.textContent = "—";
    const unit = cell("unit");
    unit.textContent = row.unit ?? "";
    const quality = cell("quality");
    const age = cell("age");
    const trend = tr.insertCell();
    const button = document.createElement("button");
    button.type = "button";
    button.className = "link";
    button.textContent = this.#i18n.t("asset.showTrend");
    button.setAttribute("aria-label", this.#i18n.t("asset.trendOf", { variable: row.variable }));
    button.addEventListener("click", () => this.#onTrend(row.variable));
    trend.appendChild(button);
    const state: RowState = {
      ...row,
      value: null,
      ts: null,
      cells: { value, unit, quality, age },
      quality: null,
    };
    this.#rows.set(row.variable, state);
    this.#renderQuality(state, Date.now());
  }

  setDeviceStates(states: Map<string, "ok" | "failing" | "disabled" | "unsupported">): void {
    this.#deviceStates = states;
    this.#tick();
  }

  /** Records readings taken at `ts`; older than what is shown is ignored (messages may cross). */
  push(
    ts: number,
    readings: readonly { variable: string; value: number; unit?: string | null | undefined }[],
  ): void {
    for (const r of readings) {
      let row = this.#rows.get(r.variable);
      if (!row) {
        this.addRow({
          variable: r.variable,
          unit: r.unit ?? null,
          deviceId: null,
          pollMs: null,
          enabled: true,
        });
        row = this.#rows.get(r.variable);
        if (!row) continue;
      }
      if (row.ts !== null && ts < row.ts) continue;
      row.value = r.value;
      row.ts = ts;
      if (r.unit && !row.unit) row.unit = r.unit;
      this.#dirty.add(row);
    }
    if (this.#dirty.size > 0 && this.#frame === 0) this.#frame = requestAnimationFrame(() => this.#flush());
  }

  #flush(): void {
    this.#frame = 0;
    const now = Date.now();
    for (const row of this.#dirty) {
      row.cells.value.textContent = row.value === null ? "—" : this.#formats.number(row.value);
      if (row.cells.unit.textContent !== (row.unit ?? "")) row.cells.unit.textContent = row.unit ?? "";
      row.cells.age.textContent = row.ts === null ? "—" : this.#formats.age(now - row.ts);
      this.#renderQuality(row, now);
    }
    this.#dirty.clear();
  }

  #tick(): void {
    const now = Date.now();
    for (const row of this.#rows.values()) {
      if (row.ts !== null) {
        const text = this.#formats.age(now - row.ts);
        if (row.cells.age.textContent !== text) row.cells.age.textContent = text;
      }
      this.#renderQuality(row, now);
    }
  }

  #renderQuality(row: RowState, now: number): void {
    const quality = qualityOf({
      enabled: row.enabled,
      deviceState: row.deviceId ? (this.#deviceStates.get(row.deviceId) ?? null) : null,
      pollMs: row.pollMs,
      ageMs: row.ts === null ? null : now - row.ts,
    });
    if (quality === row.quality) return;
    row.quality = quality;
    row.cells.quality.textContent = this.#i18n.t(`quality.${quality}`);
    row.cells.quality.className = `quality quality-${quality}`;
  }
}
