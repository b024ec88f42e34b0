import {
  batchOfInstants,
  type InstantReading,
  type TelemetryInstant,
} from "../../../shared/telemetry/batch.ts";
import { AppError } from "../../errors.ts";
import type { WriteResult } from "../../store/ports/telemetry-store.ts";
import { type AuthContext, canSeeProject } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { MAX_FUTURE_SKEW_MS, MAX_READINGS_PER_REQUEST } from "./limits.ts";
import type { TelemetryService } from "./service.ts";

/** A payload as the API receives it (spec §2, TelemetryPayload), already schema-valid. */
export type TelemetryPayloadInput = {
  asset_id: string;
  timestamp?: string | undefined;
  readings: readonly InstantReading[];
};

/**
 * POST /telemetry and /telemetry/batch: checks what the schema cannot (size, clock, retention,
 * the asset and its project), converts the payloads into one batch (the shape every later stage
 * takes) and stores all of it or none. `field(i)` names payload i in
 * error messages ("" for a lone payload, "items.3." in a batch).
 *
 * Errors: 413 beyond MAX_READINGS_PER_REQUEST readings; 400 for a timestamp more than 5 minutes
 * ahead of the server clock or older than the raw retention window (such a reading could no
 * longer be recognised as a duplicate, so rollups could count it twice); 404 for an asset that
 * does not exist or belongs to a project outside the caller's.
 */
export async function ingestTelemetry(
  ctx: ServiceContext,
  service: TelemetryService,
  auth: AuthContext,
  payloads: readonly TelemetryPayloadInput[],
  field: (index: number) => string,
): Promise<WriteResult> {
  let readings = 0;
  for (const p of payloads) readings += p.readings.length;
  if (readings > MAX_READINGS_PER_REQUEST) {
    throw new AppError(
      "PayloadTooLarge",
      `at most ${MAX_READINGS_PER_REQUEST} readings per request; this one has ${readings} (split it)`,
    );
  }
  // Each asset's project, asked once per request (a batch's payloads share a few assets).
  const projects = new Map<string, string | undefined>();
  for (const p of payloads) {
    if (!projects.has(p.asset_id)) projects.set(p.asset_id, await service.projectOfAsset(p.asset_id));
  }
  const now = ctx.clock.now().getTime();
  const oldest = service.retentionCutoff(now);
  const instants: TelemetryInstant[] = new Array(payloads.length);
  payloads.forEach((p, i) => {
    const ts = p.timestamp === undefined ? now : Date.parse(p.timestamp);
    if (!Number.isFinite(ts) || ts < 0) {
      throw new AppError("ValidationFailed", `${field(i)}timestamp: must be a date-time after 1970-01-01`);
    }
    if (ts > now + MAX_FUTURE_SKEW_MS) {
      throw new AppError(
        "ValidationFailed",
        `${field(i)}timestamp: must not be more than 5 minutes ahead of the server clock (${new Date(now).toISOString()})`,
      );
    }
    if (ts < oldest) {
      throw new AppError(
        "ValidationFailed",
        `${field(i)}timestamp: is older than the raw retention window (TELEMETRY_RETENTION_DAYS=${ctx.config.TELEMETRY_RETENTION_DAYS})`,
      );
    }
    const projectId = projects.get(p.asset_id);
    if (projectId === undefined || !canSeeProject(auth, projectId)) {
      throw new AppError("NotFound", `${field(i)}asset_id: asset not found`);
    }
    instants[i] = { assetId: p.asset_id, projectId, ts, readings: p.readings };
  });
  return service.write(batchOfInstants(instants, "http"));
}
