import type { PointReader, PointRow, SeriesRef } from "../../store/ports/telemetry-store.ts";
import type { AuthContext } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { CRLF, csvField } from "./csv-field.ts";
import { visibleAssetProject } from "./latest.ts";
import { MAX_FUTURE_SKEW_MS } from "./limits.ts";
import { type RawQuery, rawRange } from "./raw-filter.ts";

/** Rows read from storage per export and page, over all its series (the memory an export holds). */
export const CSV_PAGE_ROWS = 16_384;
/** A chunk is handed to the HTTP response once it holds about this many characters. */
const CHUNK_CHARS = 64 * 1024;

export const CSV_HEADER = `timestamp,variable,value,unit${CRLF}`;

export type CsvExport = { filename: string; body: ReadableStream<Uint8Array> };

type Cursor = {
  series: SeriesRef;
  /** The variable and unit as CSV fields, quoted once. */
  prefix: string;
  unit: string;
  rows: PointRow[];
  at: number;
  /** ts of the last row read; the next page starts after it (keyset pagination). */
  after: number;
  exhausted: boolean;
};

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * GET /telemetry/{asset_id} as CSV (RFC 4180): `timestamp,variable,value,unit`, one line per
 * reading, ascending by timestamp then variable. Every reading in [from, to] unless `limit` is
 * given; then the readings of the newest `limit` timestamps, as the JSON answer would hold them.
 *
 * Validation and the 404 happen before the first byte. The body is pulled: each pull reads one
 * bounded page per series (keyset pagination on the primary keys of raw rows and packed blocks, a
 * short read each, so no read transaction stays open while a slow client downloads) and yields
 * to the event loop first, so ingest keeps its turn; nothing is read ahead of what the client has
 * taken (backpressure).
 */
export async function rawTelemetryCsv(
  ctx: ServiceContext,
  auth: AuthContext,
  assetId: string,
  query: RawQuery,
): Promise<CsvExport> {
  const range = rawRange(query);
  await visibleAssetProject(ctx, auth, assetId);
  const series = await ctx.store.telemetry.assetSeries(assetId, query.variable);
  // One decoded block per series kept between pages: a page rarely ends on a block's edge.
  const points = ctx.store.telemetry.pointReader(Math.max(4, series.length));
  // Without `to`, the export ends at what may exist when it starts (ingest refuses later stamps),
  // so a busy series cannot keep it running.
  const toMs = Math.min(range.toMs, ctx.clock.now().getTime() + MAX_FUTURE_SKEW_MS);
  const fromMs =
    query.limit === undefined
      ? range.fromMs
      : Math.max(range.fromMs, await oldestOfNewest(points, series, range.fromMs, toMs, query.limit));
  return { filename: `telemetry-${assetId}.csv`, body: csvStream(points, series, fromMs, toMs) };
}

/** The oldest of the newest `limit` distinct timestamps in [fromMs, toMs] (+∞ when there are none). */
async function oldestOfNewest(
  points: PointReader,
  series: readonly SeriesRef[],
  fromMs: number,
  toMs: number,
  limit: number,
): Promise<number> {
  const stamps = new Set<number>();
  for (const s of series) {
    for (const [ts] of await points.descending(s.id, fromMs, toMs, limit)) stamps.add(ts);
  }
  const sorted = [...stamps].sort((a, b) => b - a);
  return sorted[Math.min(limit, sorted.length) - 1] ?? Number.POSITIVE_INFINITY;
}

function csvStream(
  points: PointReader,
  series: readonly SeriesRef[],
  fromMs: number,
  toMs: number,
): ReadableStream<Uint8Array> {
  const perSeries = Math.max(64, Math.floor(CSV_PAGE_ROWS / Math.max(1, series.length)));
  const cursors: Cursor[] = series.map((s) => ({
    series: s,
    prefix: `,${csvField(s.variable)},`,
    unit: `,${csvField(s.unit ?? "")}${CRLF}`,
    rows: [],
    at: 0,
    after: fromMs - 1,
    exhausted: false,
  }));
  const encoder = new TextEncoder();
  let headerSent = false;
  let cancelled = false;

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        await nextTick();
        if (cancelled) return;
        let chunk = headerSent ? "" : CSV_HEADER;
        headerSent = true;
        const done = await fill(cursors, points, perSeries, toMs, (line) => {
          chunk += line;
          return chunk.length < CHUNK_CHARS;
        });
        if (chunk.length > 0) controller.enqueue(encoder.encode(chunk));
        if (done) controller.close();
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 1 },
  );
}

/**
 * Emits lines in (timestamp, variable) order until `emit` says the chunk is full or every cursor
 * is exhausted (then true). Each distinct timestamp is emitted whole before `emit` can stop it.
 */
async function fill(
  cursors: Cursor[],
  points: PointReader,
  perSeries: number,
  toMs: number,
  emit: (line: string) => boolean,
): Promise<boolean> {
  for (;;) {
    let ts = Number.POSITIVE_INFINITY;
    for (const c of cursors) {
      const head = c.at < c.rows.length ? c.rows[c.at] : await nextPage(c, points, perSeries, toMs);
      if (head !== undefined && head[0] < ts) ts = head[0];
    }
    if (ts === Number.POSITIVE_INFINITY) return true;
    const stamp = new Date(ts).toISOString();
    let more = true;
    // Cursors are in variable order, so lines of one timestamp come out in variable order.
    for (const c of cursors) {
      const head = c.rows[c.at];
      if (head === undefined || head[0] !== ts) continue;
      c.at++;
      more = emit(`${stamp}${c.prefix}${head[1]}${c.unit}`) && more;
    }
    if (!more) return false;
  }
}

/** The cursor's next row once its current page is used up: the first of its next page, if any. */
async function nextPage(
  c: Cursor,
  points: PointReader,
  perSeries: number,
  toMs: number,
): Promise<PointRow | undefined> {
  if (c.exhausted) return undefined;
  c.rows = await points.ascending(c.series.id, c.after + 1, toMs, perSeries);
  c.at = 0;
  const last = c.rows.at(-1);
  if (last) c.after = last[0];
  if (c.rows.length < perSeries) c.exhausted = true;
  return c.rows[0];
}
