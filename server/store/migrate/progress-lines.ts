/** Writes one line of progress for people (the CLI: stderr). */
export type WriteLine = (line: string) => void;

const count = (n: number) => Math.round(n).toLocaleString("en-US");
const rowsOf = (n: number) => `${count(n)} ${n === 1 ? "row" : "rows"}`;

/**
 * Progress of one table's copy: a line at most every `everyMs` while it runs (rows copied,
 * % done, rows/s), and one when it ends.
 */
export class TableProgressLines {
  readonly #write: WriteLine;
  readonly #table: string;
  readonly #total: number;
  readonly #startRows: number;
  readonly #everyMs: number;
  readonly #now: () => number;
  readonly #startedAt: number;
  #lastAt: number;

  constructor(
    write: WriteLine,
    table: string,
    total: number,
    startRows: number,
    everyMs = 1000,
    now = () => performance.now(),
  ) {
    this.#write = write;
    this.#table = table;
    this.#total = total;
    this.#startRows = startRows;
    this.#everyMs = everyMs;
    this.#now = now;
    this.#startedAt = now();
    this.#lastAt = this.#startedAt;
    if (startRows > 0) write(`${table}: resuming after ${count(startRows)} of ${count(total)} rows`);
  }

  #rate(rows: number): number {
    const seconds = (this.#now() - this.#startedAt) / 1000;
    return seconds > 0 ? (rows - this.#startRows) / seconds : 0;
  }

  /** `rows` of the table are now copied. */
  batch(rows: number): void {
    const now = this.#now();
    if (now - this.#lastAt < this.#everyMs) return;
    this.#lastAt = now;
    const pct = this.#total > 0 ? ((100 * rows) / this.#total).toFixed(1) : "100.0";
    this.#write(
      `${this.#table}: ${count(rows)} of ${count(this.#total)} rows (${pct}%), ${count(this.#rate(rows))} rows/s`,
    );
  }

  done(rows: number): void {
    const seconds = (this.#now() - this.#startedAt) / 1000;
    const copied = rows - this.#startRows;
    this.#write(
      `${this.#table}: ${rowsOf(rows)}` +
        (copied > 0
          ? `, ${count(copied)} copied in ${seconds.toFixed(1)} s (${count(this.#rate(rows))} rows/s)`
          : ""),
    );
  }
}
