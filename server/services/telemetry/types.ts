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
