/** A billing period: one calendar month in UTC, [startMs, endMs). */
export type BillingPeriod = { period: string; startMs: number; endMs: number };

/** The calendar month (UTC) containing `ms`; `offset` months later (negative: earlier). */
export function monthOf(ms: number, offset = 0): BillingPeriod {
  const d = new Date(ms);
  const startMs = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1);
  const start = new Date(startMs);
  const endMs = Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1);
  return { period: start.toISOString().slice(0, 7), startMs, endMs };
}
