import { ROLLUP_BUCKET_MS } from "../../ports/telemetry-store.ts";

/** Rollup widths, aligned to the UTC epoch: the 5-minute and hourly rollups, and a UTC day. */
export const BUCKET_5M_MS = ROLLUP_BUCKET_MS;
export const BUCKET_1H_MS = 3600_000;
export const DAY_MS = 86_400_000;
