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

type Chunk = { element: HTMLElement; rows: RowState[]; visible: boolean };

type RowState = LiveRow & {
  value: number | null;
  ts: number | null;
  chunk: Chunk;
  /** Holds a value not yet written because its rows were off screen. */
  behind: boolean;
  cells: { value: HTMLElement; unit: HTMLElement; quality: HTMLElement; age: HTMLElement };
  quality: Quality | null;
};

/** Rows per row group: the unit the browser skips rendering of while it is off screen. */
const CHUNK_ROWS = 40;

/**
 * The asset's variables with live value, unit, quality and age, as an ARIA table of CSS grid rows.
 * Built and updated with plain DOM calls, not templates: stream messages only record the newest
 * value, and one animation frame writes the changed cells. Rows come in groups of 40 with
 * `content-visibility: auto`, so the browser neither lays out, paints nor hit-tests the groups off
 * screen, and only groups on screen are written (an IntersectionObserver per group); a group that
 * scrolls into view is brought up to date then. A thousand variables updated a thousand times a
 * second cost a few dozen cell writes per frame. Ages and qualities on screen refresh once a second.
 */
export class LiveTable {
  readonly element: HTMLElement;
  readonly #rows = new Map<string, RowState>();
  readonly #chunks: Chunk[] = [];
  readonly #dirty = new Set<RowState>();
  readonly #i18n: I18n;
  readonly #formats: Formats;
  readonly #onTrend: (variable: string) => void;
  #deviceStates = new Map<string, "ok" | "failing" | "disabled" | "unsupported">();
  #frame = 0;
  #ticker: ReturnType<typeof setInterval> | undefined;
  readonly #observer = new IntersectionObserver((entries) => {
    const now = Date.now();
    for (const entry of entries) {
      const chunk = this.#chunks.find((c) => c.element === entry.target);
      if (!chunk) continue;
      chunk.visible = entry.isIntersecting;
      if (chunk.visible) for (const row of chunk.rows) this.#write(row, now);
    }
  });

  constructor(i18n: I18n, formats: Formats, onTrend: (variable: string) => void) {
    this.#i18n = i18n;
    this.#formats = formats;
    this.#onTrend = onTrend;
    this.element = document.createElement("div");
    this.element.className = "live-table";
    this.element.setAttribute("role", "table");
    this.element.setAttribute("aria-label", i18n.t("asset.liveCaption"));
    const head = this.#element("div", "live-head", "rowgroup");
    const headRow = this.#element("div", "live-row", "row");
    for (const key of [
      "asset.variable",
      "asset.value",
      "asset.unit",
      "asset.quality",
      "asset.age",
      "asset.trend",
    ] as const) {
      const th = this.#element("div", "live-th", "columnheader");
      th.textContent = i18n.t(key);
      headRow.appendChild(th);
    }
    head.appendChild(headRow);
    this.element.appendChild(head);
  }

  #element(tag: string, className: string, role: string): HTMLElement {
    const el = document.createElement(tag);
    el.className = className;
    el.setAttribute("role", role);
    return el;
  }

  start(): void {
    this.#ticker = setInterval(() => this.#tick(), 1000);
  }

  stop(): void {
    this.#observer.disconnect();
    clearInterval(this.#ticker);
    cancelAnimationFrame(this.#frame);
  }

  get variables(): string[] {
    return [...this.#rows.keys()];
  }

  unitOf(variable: string): string | null {
    return this.#rows.get(variable)?.unit ?? null;
  }

  #chunk(): Chunk {
    const last = this.#chunks.at(-1);
    if (last && last.rows.length < CHUNK_ROWS) return last;
    const chunk: Chunk = {
      element: this.#element("div", "live-chunk", "rowgroup"),
      rows: [],
      visible: false,
    };
    this.#chunks.push(chunk);
    this.element.appendChild(chunk.element);
    this.#observer.observe(chunk.element);
    return chunk;
  }

  addRow(row: LiveRow): void {
    if (this.#rows.has(row.variable)) return;
    const chunk = this.#chunk();
    const tr = this.#element("div", "live-row", "row");
    tr.dataset.variable = row.variable;
    const name = this.#element("div", "live-name", "rowheader");
    name.textContent = row.variable;
    tr.appendChild(name);
    const cell = (cls: string, text = "") => {
      const td = this.#element("div", cls, "cell");
      td.textContent = text;
      tr.appendChild(td);
      return td;
    };
    const value = cell("value num", "—");
    const unit = cell("unit", row.unit ?? "");
    const quality = cell("quality");
    const age = cell("age");
    const trend = cell("trend");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "link";
    button.textContent = this.#i18n.t("asset.showTrend");
    button.setAttribute("aria-label", this.#i18n.t("asset.trendOf", { variable: row.variable }));
    button.addEventListener("click", () => this.#onTrend(row.variable));
    trend.appendChild(button);
    chunk.element.appendChild(tr);
    const state: RowState = {
      ...row,
      value: null,
      ts: null,
      chunk,
      behind: false,
      cells: { value, unit, quality, age },
      quality: null,
    };
    chunk.rows.push(state);
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
      if (row.chunk.visible) this.#write(row, now);
      else row.behind = true;
    }
    this.#dirty.clear();
  }

  #write(row: RowState, now: number): void {
    row.behind = false;
    const value = row.value === null ? "—" : this.#formats.number(row.value);
    if (row.cells.value.textContent !== value) row.cells.value.textContent = value;
    if (row.cells.unit.textContent !== (row.unit ?? "")) row.cells.unit.textContent = row.unit ?? "";
    this.#writeAge(row, now);
    this.#renderQuality(row, now);
  }

  #writeAge(row: RowState, now: number): void {
    const text = row.ts === null ? "—" : this.#formats.age(now - row.ts);
    if (row.cells.age.textContent !== text) row.cells.age.textContent = text;
  }

  #tick(): void {
    const now = Date.now();
    for (const chunk of this.#chunks) {
      if (!chunk.visible) continue;
      for (const row of chunk.rows) {
        if (row.behind) this.#write(row, now);
        else {
          this.#writeAge(row, now);
          this.#renderQuality(row, now);
        }
      }
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
