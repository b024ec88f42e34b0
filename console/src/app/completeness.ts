import type { ReportPreview } from "../api/types.ts";

/**
 * Today's completeness so far, 0..1, from the preview of today's report: the preview expects
 * samples for the whole day (docs/anh-report.md, "Preview"), so the expectation is scaled to the
 * part of the day that has elapsed. Null when nothing is polled (no expected samples).
 */
export function completenessSoFar(preview: ReportPreview): number | null {
  const { samples_received: received, samples_expected: expected } = preview.content.telemetry;
  const start = Date.parse(preview.period_start);
  const end = Date.parse(preview.period_end);
  const asOf = Date.parse(preview.as_of);
  if (!(expected > 0) || !(end > start)) return null;
  const elapsed = Math.min(1, Math.max(0, (asOf - start) / (end - start)));
  const expectedSoFar = expected * elapsed;
  if (expectedSoFar < 1) return null;
  return Math.min(1, received / expectedSoFar);
}
