/** Limits of the telemetry API (spec §8 leaves payload sizes open; these are ours). */

/** Readings accepted in one request, POST /telemetry or /telemetry/batch (beyond: 413). */
export const MAX_READINGS_PER_REQUEST = 10_000;

/**
 * The largest body a batch of MAX_READINGS_PER_REQUEST readings needs (names of 128 characters,
 * units, item overhead). The server refuses larger bodies for every route (http/body-limit.ts).
 */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** A reading may be stamped at most this far ahead of the server clock (agent clock skew). */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;

/** GET /telemetry/{asset_id}: `limit` counts payloads (distinct timestamps), spec §8 default 100. */
export const LATEST_LIMIT_DEFAULT = 100;
export const LATEST_LIMIT_MAX = 10_000;

/** `variable` values accepted in one query (GET /telemetry/{asset_id} and its history). */
export const MAX_VARIABLE_FILTERS = 100;

/** GET /telemetry/{asset_id}/history: default range and the longest range served. */
export const HISTORY_DEFAULT_RANGE_MS = 24 * 3600_000;
export const HISTORY_MAX_RANGE_DAYS = 366;
