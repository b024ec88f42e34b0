import { AppError } from "../../errors.ts";
import type { Sqlite } from "../../store/sqlite/client.ts";

/** The filters of GET /telemetry/{asset_id}, as the route validated them. */
export type RawQuery = {
  limit?: number | undefined;
  from?: string | undefined;
  to?: string | undefined;
  variable?: readonly string[] | undefined;
};

/** One series of the asset: its id, variable and unit. */
export type SeriesRef = { id: number; variable: string; unit: string | null };

/** [from, to] in epoch ms, both inclusive; unbounded sides are the widest integers. 400 when from > to. */
export function rawRange(query: RawQuery): { fromMs: number; toMs: number } {
  const fromMs = query.from === undefined ? Number.MIN_SAFE_INTEGER : Date.parse(query.from);
  const toMs = query.to === undefined ? Number.MAX_SAFE_INTEGER : Date.parse(query.to);
  if (fromMs > toMs) throw new AppError("ValidationFailed", "from: must not be after to");
  return { fromMs, toMs };
}

/**
 * The asset's series, in variable order (UTF-16 code units, like the JSON readings), restricted to
 * `variables` when given. A name without a series matches nothing: telemetry may carry any
 * variable name, so a name not seen yet is an empty answer, not an error.
 */
export function assetSeries(sqlite: Sqlite, assetId: string, variables?: readonly string[]): SeriesRef[] {
  const all = sqlite
    .prepare<[string], SeriesRef>("SELECT id, variable, unit FROM telemetry_series WHERE asset_id = ?")
    .all(assetId);
  const wanted = variables === undefined ? undefined : new Set(variables);
  return all
    .filter((s) => wanted === undefined || wanted.has(s.variable))
    .sort((a, b) => (a.variable < b.variable ? -1 : a.variable > b.variable ? 1 : 0));
}
