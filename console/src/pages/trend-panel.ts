import { html, nothing, render } from "lit/html.js";
import type { HistoryItem, TelemetryPayload } from "../api/types.ts";
import { saveFile } from "../app/download.ts";
import type { PageContext } from "../app/page.ts";
import { TrendChart } from "../charts/trend-chart.ts";
import { historyColumns, rawColumns } from "../charts/trend-data.ts";
import { openingRange, RANGE_MS, RAW_LIMIT, type TrendRange, trendSource } from "../charts/trend-source.ts";
import { utcToZoned, zonedToUtc } from "../i18n/format.ts";

type Choice = TrendRange | "custom";
const CHOICES: Choice[] = ["1h", "24h", "7d", "30d", "custom"];
type Picked = { choice: Choice; custom: { from: string; to: string } };

/*
 * The range the user last picked, for every trend of this browser tab. Its truth is the tab's
 * sessionStorage: a trend panel lives as long as its asset page, and switching asset makes a new
 * one, which opens on the range picked on the previous asset.
 */
const PICKED_KEY = "caudal.trend.range";

function pickedRange(): Picked | null {
  try {
    const raw = sessionStorage.getItem(PICKED_KEY);
    const value: unknown = raw ? JSON.parse(raw) : null;
    if (typeof value !== "object" || value === null || !("choice" in value) || !("custom" in value))
      return null;
    const { choice, custom } = value;
    const known = CHOICES.find((c) => c === choice);
    if (!known || typeof custom !== "object" || custom === null) return null;
    const from = "from" in custom && typeof custom.from === "string" ? custom.from : "";
    const to = "to" in custom && typeof custom.to === "string" ? custom.to : "";
    return { choice: known, custom: { from, to } };
  } catch {
    return null; // storage disabled or a value this code did not write: open as if nothing was picked
  }
}

function rememberRange(picked: Picked): void {
  try {
    sessionStorage.setItem(PICKED_KEY, JSON.stringify(picked));
  } catch {
    // Storage disabled: the choice holds for this asset only.
  }
}

export type TrendPanelOptions = {
  assetId: string;
  timeZone: string;
  unitOf(variable: string): string | null;
};

/**
 * A variable's trend over 1 h, 24 h, 7 d, 30 d or a custom range (in the project's time zone),
 * from raw readings for short ranges and from history windows otherwise (charts/trend-source.ts),
 * and the range's raw readings as CSV.
 */
export class TrendPanel {
  readonly #controls: HTMLElement;
  readonly #chartHost: HTMLElement;
  readonly #ctx: PageContext;
  readonly #o: TrendPanelOptions;
  readonly #chart: TrendChart;
  #variable: string | null = null;
  /** Null until the opening range is chosen (openingRange), unless the user picked one before. */
  #choice: Choice | null = null;
  #custom = { from: "", to: "" };
  #status = "";
  #error: string | null = null;
  #request = 0;

  constructor(host: HTMLElement, ctx: PageContext, o: TrendPanelOptions) {
    this.#ctx = ctx;
    this.#o = o;
    this.#controls = document.createElement("div");
    this.#chartHost = document.createElement("div");
    this.#chartHost.className = "trend-chart";
    this.#chartHost.dataset.testid = "trend-chart";
    host.append(this.#controls, this.#chartHost);
    this.#chart = new TrendChart(this.#chartHost, ctx.i18n, ctx.formats.locale);
    const now = Date.now();
    this.#custom = { from: utcToZoned(now - 86_400_000, o.timeZone), to: utcToZoned(now, o.timeZone) };
    const picked = pickedRange();
    if (picked) {
      this.#choice = picked.choice;
      if (picked.custom.from && picked.custom.to) this.#custom = picked.custom;
    }
    this.#update();
  }

  select(variable: string): void {
    this.#variable = variable;
    void this.#load();
  }

  destroy(): void {
    this.#request++;
    this.#chart.destroy();
  }

  #range(choice: Choice): { from: number; to: number } | null {
    if (choice !== "custom") {
      const to = Date.now();
      return { from: to - RANGE_MS[choice], to };
    }
    const from = zonedToUtc(this.#custom.from, this.#o.timeZone);
    const to = zonedToUtc(this.#custom.to, this.#o.timeZone);
    return Number.isFinite(from) && Number.isFinite(to) && from < to ? { from, to } : null;
  }

  /** Two one-row reads: the variable's newest reading, and whether it has one older than a day. */
  async #chooseOpening(variable: string): Promise<TrendRange> {
    const now = Date.now();
    const path = `/api/telemetry/${this.#o.assetId}`;
    const [newest, old] = await Promise.all([
      this.#ctx.api.get<TelemetryPayload[]>(path, { variable, limit: 1 }),
      this.#ctx.api.get<TelemetryPayload[]>(path, {
        variable,
        limit: 1,
        to: new Date(now - RANGE_MS["24h"]).toISOString(),
      }),
    ]);
    const at = newest[0] ? Date.parse(newest[0].timestamp) : null;
    return openingRange(now, at, old.length > 0);
  }

  async #load(): Promise<void> {
    const variable = this.#variable;
    const request = ++this.#request;
    const { i18n, api } = this.#ctx;
    if (!variable) return this.#update();
    if (this.#choice === null) {
      this.#status = i18n.t("common.loading");
      this.#update();
      const opening = await this.#chooseOpening(variable).catch(() => "24h" as const);
      if (request !== this.#request) return;
      this.#choice ??= opening;
    }
    const range = this.#range(this.#choice);
    if (!range) {
      this.#error = i18n.t("trend.badRange");
      return this.#update();
    }
    this.#error = null;
    this.#status = i18n.t("common.loading");
    this.#update();
    const query = {
      from: new Date(range.from).toISOString(),
      to: new Date(range.to).toISOString(),
      variable,
    };
    try {
      let source = trendSource(range.to - range.from);
      let columns: Awaited<ReturnType<typeof rawColumns>> | null = null;
      if (source.kind === "raw") {
        const payloads = await api.get<TelemetryPayload[]>(`/api/telemetry/${this.#o.assetId}`, {
          ...query,
          limit: RAW_LIMIT,
        });
        // More readings than one request holds: windows instead of a truncated line.
        if (payloads.length < RAW_LIMIT) columns = rawColumns(payloads, variable);
        else source = { kind: "history", interval: "5m" };
      }
      if (source.kind === "history") {
        const items = await api.get<HistoryItem[]>(`/api/telemetry/${this.#o.assetId}/history`, {
          ...query,
          interval: source.interval,
        });
        columns = historyColumns(items, variable);
      }
      if (request !== this.#request || !columns) return;
      const points = columns[0].length;
      const ms = await this.#chart.show(columns, {
        variable,
        unit: this.#o.unitOf(variable),
        timeZone: this.#o.timeZone,
        aggregated: source.kind === "history",
        from: range.from,
        to: range.to,
      });
      if (request !== this.#request) return;
      this.#chartHost.dataset.renderMs = ms.toFixed(1);
      this.#chartHost.dataset.points = String(points);
      this.#status =
        points === 0
          ? i18n.t("trend.noData")
          : i18n.t(source.kind === "raw" ? "trend.rawPoints" : "trend.windowPoints", {
              count: this.#ctx.formats.number(points),
              interval: source.kind === "history" ? source.interval : "",
            });
    } catch (err) {
      if (request !== this.#request) return;
      this.#error = err instanceof Error ? err.message : String(err);
      this.#status = "";
    }
    this.#update();
  }

  async #export(): Promise<void> {
    const range = this.#choice === null ? null : this.#range(this.#choice);
    if (!this.#variable || !range) return;
    try {
      const file = await this.#ctx.api.download(
        `/api/telemetry/${this.#o.assetId}`,
        {
          format: "csv",
          from: new Date(range.from).toISOString(),
          to: new Date(range.to).toISOString(),
          variable: this.#variable,
        },
        "text/csv",
      );
      saveFile(file.blob, file.filename);
    } catch (err) {
      this.#error = err instanceof Error ? err.message : String(err);
      this.#update();
    }
  }

  #update(): void {
    const { i18n } = this.#ctx;
    const pick = (choice: Choice) => {
      this.#choice = choice;
      if (choice !== "custom") {
        rememberRange({ choice, custom: this.#custom });
        void this.#load();
      } else this.#update();
    };
    render(
      html`<h2 id="trend-title">${this.#variable ? i18n.t("trend.titleOf", { variable: this.#variable }) : i18n.t("trend.title")}</h2>
        ${
          this.#variable
            ? html`<div class="trend-controls">
              <div role="group" aria-labelledby="trend-title" class="segmented">
                ${CHOICES.map(
                  (
                    c,
                  ) => html`<button type="button" aria-pressed=${this.#choice === c ? "true" : "false"} data-range=${c}
                    @click=${() => pick(c)}>${i18n.t(`trend.range.${c}`)}</button>`,
                )}
              </div>
              ${
                this.#choice === "custom"
                  ? html`<form class="custom-range" @submit=${(e: Event) => {
                      e.preventDefault();
                      const form = new FormData(e.target as HTMLFormElement);
                      this.#custom = {
                        from: String(form.get("from") ?? ""),
                        to: String(form.get("to") ?? ""),
                      };
                      rememberRange({ choice: "custom", custom: this.#custom });
                      void this.#load();
                    }}>
                    <label>${i18n.t("trend.from")} <input type="datetime-local" name="from" .value=${this.#custom.from}></label>
                    <label>${i18n.t("trend.to")} <input type="datetime-local" name="to" .value=${this.#custom.to}></label>
                    <button type="submit">${i18n.t("trend.apply")}</button>
                  </form>`
                  : nothing
              }
              <button type="button" @click=${() => void this.#export()} data-testid="export-csv">${i18n.t("trend.exportCsv")}</button>
              <span class="muted" role="status">${this.#status}</span>
              <span class="muted">${i18n.t("trend.zone", { zone: this.#o.timeZone })}</span>
            </div>`
            : html`<p class="muted">${i18n.t("trend.pick")}</p>`
        }
        ${this.#error ? html`<p class="error" role="alert">${this.#error}</p>` : nothing}`,
      this.#controls,
    );
  }
}
