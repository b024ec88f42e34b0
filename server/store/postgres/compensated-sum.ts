/**
 * A sum of doubles as SQLite's SUM() adds REAL values (3.43+): in the order given, with
 * Kahan–Babuška–Neumaier compensation, the error term added at the end unless it overflowed.
 * PostgreSQL's SUM(double precision) adds without compensation, and ANH report bytes depend on the
 * last bit (docs/scale-out.md).
 */
export class CompensatedSum {
  #sum = 0;
  #err = 0;

  add(value: number): void {
    const s = this.#sum;
    const t = s + value;
    if (Math.abs(s) > Math.abs(value)) this.#err += s - t + value;
    else this.#err += value - t + s;
    this.#sum = t;
  }

  get value(): number {
    return Number.isFinite(this.#err) ? this.#sum + this.#err : this.#sum;
  }
}
