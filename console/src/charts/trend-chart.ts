import uPlot from "uplot";
import type { I18n } from "../i18n/i18n.ts";
import type { TrendColumns } from "./trend-data.ts";

export type TrendOptions = {
  variable: string;
  unit: string | null;
  timeZone: string;
  /** History windows carry avg, min and max; raw readings one value. */
  aggregated: boolean;
  /** The requested range (ms): the time axis spans it whatever data there is. */
  from: number;
  to: number;
};

const HEIGHT = 280;

/** One variable's trend drawn with uPlot, on the project's time zone and the user's locale. */
export class TrendChart {
  readonly #host: HTMLElement;
  readonly #i18n: I18n;
  readonly #locale: string;
  #plot: uPlot | null = null;
  readonly #resize = () => this.#plot?.setSize({ width: this.#width(), height: HEIGHT });

  constructor(host: HTMLElement, i18n: I18n, locale: string) {
    this.#host = host;
    this.#i18n = i18n;
    this.#locale = locale;
    window.addEventListener("resize", this.#resize);
  }

  #width(): number {
    return Math.max(280, this.#host.clientWidth || 600);
  }

  /** Draws `columns`; resolves once painted, with the milliseconds it took. */
  async show(columns: TrendColumns, o: TrendOptions): Promise<number> {
    const started = performance.now();
    this.#plot?.destroy();
    const number = new Intl.NumberFormat(this.#locale, { maximumFractionDigits: 3 });
    const value = (_u: uPlot, v: number | null) => (v == null ? "—" : number.format(v));
    const label = o.unit ? `${o.variable} (${o.unit})` : o.variable;
    // Tick labels as fine as the ticks uPlot chose: seconds, minutes or days.
    const zone = { timeZone: o.timeZone };
    const ticks = {
      seconds: new Intl.DateTimeFormat(this.#locale, {
        ...zone,
        hour: "numeric",
        minute: "2-digit",
        second: "2-digit",
      }),
      minutes: new Intl.DateTimeFormat(this.#locale, { ...zone, hour: "numeric", minute: "2-digit" }),
      days: new Intl.DateTimeFormat(this.#locale, { ...zone, day: "numeric", month: "short" }),
    };
    const tickFormat = (incrSeconds: number) =>
      incrSeconds < 60 ? ticks.seconds : incrSeconds < 86_400 ? ticks.minutes : ticks.days;
    const full = new Intl.DateTimeFormat(this.#locale, {
      timeZone: o.timeZone,
      dateStyle: "short",
      timeStyle: "medium",
    });
    const series: uPlot.Series[] = [
      { label: this.#i18n.t("trend.time"), value: (_u, v) => (v == null ? "—" : full.format(v * 1000)) },
      { label: o.aggregated ? this.#i18n.t("trend.avg") : label, stroke: "#0b4f6c", width: 2, value },
    ];
    if (o.aggregated) {
      series.push(
        { label: this.#i18n.t("trend.min"), stroke: "#6a8ea0", width: 1, dash: [4, 4], value },
        { label: this.#i18n.t("trend.max"), stroke: "#a05a2c", width: 1, dash: [4, 4], value },
      );
    }
    this.#plot = new uPlot(
      {
        width: this.#width(),
        height: HEIGHT,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), o.timeZone),
        series,
        scales: { x: { time: true, range: () => [o.from / 1000, o.to / 1000] } },
        axes: [
          {
            space: 110,
            values: (_u, splits, _axis, _space, incr) => splits.map((t) => tickFormat(incr).format(t * 1000)),
          },
          { label, values: (_u, ticks) => ticks.map((t) => number.format(t)), size: 70 },
        ],
        legend: { live: true },
        cursor: { drag: { x: true, y: false } },
      },
      columns as uPlot.AlignedData,
      this.#host,
    );
    await new Promise((resolve) => requestAnimationFrame(resolve));
    return performance.now() - started;
  }

  destroy(): void {
    window.removeEventListener("resize", this.#resize);
    this.#plot?.destroy();
    this.#plot = null;
  }
}
