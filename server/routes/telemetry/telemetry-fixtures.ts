import type { ApiResponse, TestServer } from "../../testing/harness.ts";

/*
 * Test-only helpers for the telemetry route tests: a project with assets and users of each role
 * that matters here, built through the API; counts read straight from the tables, because the
 * tests are about what was (or was not) stored.
 */

export type Field = {
  projectId: string;
  assetId: string;
  otherAssetId: string;
  /** An asset in a project the operador is not assigned to. */
  foreignAssetId: string;
  operador: string;
  reader: string;
  admin: string;
};

export async function field(t: TestServer): Promise<Field> {
  const admin = (await t.admin()).token;
  const projectId = await t.project();
  const foreignProject = await t.project();
  const [assetId, otherAssetId, foreignAssetId] = await Promise.all([
    t.asset(projectId),
    t.asset(projectId, "tank"),
    t.asset(foreignProject),
  ]);
  const operador = (await t.userWithRole("operador", [projectId])).token;
  const reader = (await t.userWithRole("anh_reader", [projectId])).token;
  return { projectId, assetId, otherAssetId, foreignAssetId, operador, reader, admin };
}

export type Reading = { variable: string; value: number; unit?: string };
export type Payload = { asset_id: string; timestamp?: string; readings: Reading[] };
export type IngestBody = { accepted: number; duplicates: number };
export type ErrorBody = { error: string; message: string };
export type StoredPayload = { asset_id: string; timestamp: string; readings: Reading[] };
export type HistoryItem = {
  bucket: string;
  variable: string;
  avg_value: number;
  min_value: number;
  max_value: number;
};

export function post(
  t: TestServer,
  token: string,
  body: unknown,
): Promise<ApiResponse<IngestBody & ErrorBody>> {
  return t.request("/api/telemetry", { token, body });
}

export function postBatch(
  t: TestServer,
  token: string,
  items: unknown[],
): Promise<ApiResponse<IngestBody & ErrorBody>> {
  return t.request("/api/telemetry/batch", { token, body: { items } });
}

/** Raw rows stored for an asset. */
export function rawCount(t: TestServer, assetId: string): number {
  const count = t.server.context.sqlite
    .prepare<[string], number>(
      "SELECT count(*) FROM telemetry_raw r JOIN telemetry_series s ON s.id = r.series_id WHERE s.asset_id = ?",
    )
    .pluck()
    .get(assetId);
  return count ?? 0;
}

/** usage_counters.telemetry_points of the project, this month (UTC). */
export function usagePoints(t: TestServer, projectId: string): number {
  const period = t.clock.now().toISOString().slice(0, 7);
  const points = t.server.context.sqlite
    .prepare<[string, string], number>(
      "SELECT telemetry_points FROM usage_counters WHERE project_id = ? AND period = ?",
    )
    .pluck()
    .get(projectId, period);
  return points ?? 0;
}

/** An instant `minutesAgo` before the server clock, as ISO 8601. */
export function ago(t: TestServer, minutes: number): string {
  return new Date(t.clock.now().getTime() - minutes * 60_000).toISOString();
}

/** 12:00:00.000Z of the UTC day before the server clock's: a fixed, recent, bucket-aligned instant. */
export function yesterdayNoon(t: TestServer): number {
  const day = 86_400_000;
  const now = t.clock.now().getTime();
  return now - (now % day) - day + 12 * 3600_000;
}

export const iso = (ms: number) => new Date(ms).toISOString();
