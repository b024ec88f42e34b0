/** One reading of a payload (spec §2, TelemetryPayload.readings). */
export type Reading = { variable: string; value: number; unit?: string | undefined };

/** A validated payload: its asset resolved to the owning project, its time in epoch ms. */
export type TelemetryItem = {
  assetId: string;
  projectId: string;
  ts: number;
  readings: readonly Reading[];
  /** An agent's batch (rules already evaluated at the edge) or an HTTP request; default http. */
  source?: "http" | "agent";
};

/**
 * What a request stored. Duplicates (a reading for a series and millisecond already stored, or
 * repeated within the request) are ignored: first write wins, so a replayed batch is harmless.
 */
export type WriteResult = {
  accepted: number;
  duplicates: number;
  /**
   * Readings older than the raw retention window, not stored: they could no longer be recognised
   * as duplicates, so rollups and billing might count them twice. The HTTP API refuses them (400)
   * before they get here; other callers (agent batches) learn the count.
   */
  expired?: number;
};
