import { AppError } from "../../errors.ts";

/** The filters of GET /telemetry/{asset_id}, as the route validated them. */
export type RawQuery = {
  limit?: number | undefined;
  from?: string | undefined;
  to?: string | undefined;
  variable?: readonly string[] | undefined;
};

/** [from, to] in epoch ms, both inclusive; unbounded sides are the widest integers. 400 when from > to. */
export function rawRange(query: RawQuery): { fromMs: number; toMs: number } {
  const fromMs = query.from === undefined ? Number.MIN_SAFE_INTEGER : Date.parse(query.from);
  const toMs = query.to === undefined ? Number.MAX_SAFE_INTEGER : Date.parse(query.to);
  if (fromMs > toMs) throw new AppError("ValidationFailed", "from: must not be after to");
  return { fromMs, toMs };
}
