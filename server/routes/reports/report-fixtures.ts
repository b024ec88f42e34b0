import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import type { ApiResponse, TestServer } from "../../testing/harness.ts";

/*
 * Test-only helpers for the reporting, billing and dashboard tests. Telemetry rollups are written
 * straight into telemetry_series / telemetry_rollup_5m so that a test states each bucket's
 * count/sum/min/max exactly; alarms are inserted the same way.
 */

export const BUCKET_MS = 300_000;

export async function createProject(
  t: TestServer,
  body: Record<string, unknown> = {},
  token?: string,
): Promise<string> {
  const res = await t.request<{ id: string }>("/api/edge/projects", {
    token: token ?? (await t.admin()).token,
    body: { name: `Campo ${randomUUID().slice(0, 8)}`, ...body },
  });
  if (res.status !== 201) throw new Error(`create project failed: ${res.status} ${res.text}`);
  return res.body.id;
}

export async function createAsset(
  t: TestServer,
  projectId: string,
  name: string,
  assetType: "well" | "tank" | "pipeline" | "station" | "meter" = "well",
): Promise<string> {
  const res = await t.request<{ id: string }>("/api/edge/assets", {
    token: (await t.admin()).token,
    body: { project_id: projectId, name, asset_type: assetType },
  });
  if (res.status !== 201) throw new Error(`create asset failed: ${res.status} ${res.text}`);
  return res.body.id;
}

export async function createDevice(t: TestServer, assetId: string, enabled = true): Promise<string> {
  const res = await t.request<{ id: string }>(`/api/edge/assets/${assetId}/devices`, {
    token: (await t.admin()).token,
    body: { name: `plc-${randomUUID().slice(0, 8)}`, protocol: "modbus_tcp", enabled },
  });
  if (res.status !== 201) throw new Error(`create device failed: ${res.status} ${res.text}`);
  return res.body.id;
}

export async function createVariable(
  t: TestServer,
  deviceId: string,
  alias: string,
  pollIntervalMs: number,
  unit: string | null = null,
): Promise<string> {
  const res = await t.request<{ id: string }>(`/api/edge/devices/${deviceId}/variables`, {
    token: (await t.admin()).token,
    body: { alias, data_type: "float", poll_interval_ms: pollIntervalMs, unit },
  });
  if (res.status !== 201) throw new Error(`create variable failed: ${res.status} ${res.text}`);
  return res.body.id;
}

/** POSTs an operational record (movements, downtime, well-tests, lab-results, meters/readings); its id. */
export async function postRecord(
  t: TestServer,
  path: string,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await t.request<{ id: string }>(`/api/${path}`, { token: (await t.admin()).token, body });
  if (res.status !== 201) throw new Error(`POST /api/${path} failed: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A telemetry series row; its id. */
export function seedSeries(
  t: TestServer,
  projectId: string,
  assetId: string,
  variable: string,
  unit: string | null = null,
): number {
  const info = t.server.context.sqlite
    .prepare("INSERT INTO telemetry_series (project_id, asset_id, variable, unit) VALUES (?, ?, ?, ?)")
    .run(projectId, assetId, variable, unit);
  return Number(info.lastInsertRowid);
}

export type Bucket = { bucket: number; count: number; sum: number; min: number; max: number };

export function seedBuckets(t: TestServer, seriesId: number, buckets: Bucket[]): void {
  const sqlite = t.server.context.sqlite;
  const insert = sqlite.prepare(
    "INSERT INTO telemetry_rollup_5m (series_id, bucket, count, sum, min, max) VALUES (?, ?, ?, ?, ?, ?)",
  );
  sqlite.transaction(() => {
    for (const b of buckets) insert.run(seriesId, b.bucket, b.count, b.sum, b.min, b.max);
  })();
}

/** Every 5-minute bucket in [fromMs, toMs) except those `skip` rejects, each from `make`. */
export function bucketsBetween(
  fromMs: number,
  toMs: number,
  make: (bucket: number, index: number) => Omit<Bucket, "bucket">,
  skip: (bucket: number) => boolean = () => false,
): Bucket[] {
  const out: Bucket[] = [];
  let i = 0;
  for (let b = fromMs; b < toMs; b += BUCKET_MS) {
    if (!skip(b)) out.push({ bucket: b, ...make(b, i) });
    i++;
  }
  return out;
}

export function setLastReading(t: TestServer, seriesId: number, ts: number, value: number): void {
  t.server.context.sqlite
    .prepare("UPDATE telemetry_series SET last_ts = ?, last_value = ? WHERE id = ?")
    .run(ts, value, seriesId);
}

export function insertAlarm(
  t: TestServer,
  a: {
    projectId: string;
    assetId: string | null;
    variable: string;
    value: number;
    alarmType: "high" | "low" | "critical_high" | "critical_low" | "comm_loss";
    at: number;
    active?: boolean;
    acknowledged?: boolean;
  },
): string {
  const id = randomUUID();
  t.server.context.sqlite
    .prepare(
      `INSERT INTO alarms (id, project_id, asset_id, variable, value, alarm_type, severity, message, timestamp,
         active, acknowledged, source, created_at)
       VALUES (?, ?, ?, ?, ?, ?, 'warning', ?, ?, ?, ?, 'server', ?)`,
    )
    .run(
      id,
      a.projectId,
      a.assetId,
      a.variable,
      a.value,
      a.alarmType,
      `${a.variable} ${a.alarmType} at ${a.value}`,
      a.at,
      a.active === false ? 0 : 1,
      a.acknowledged ? 1 : 0,
      a.at,
    );
  return id;
}

/** Asserts an error response: status, stable code and (optionally) the field the message names. */
export function expectError(res: ApiResponse, status: number, code: string, field?: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { error: code } });
  const message = (res.body as { message?: unknown }).message;
  expect(typeof message).toBe("string");
  if (field) expect(message).toContain(`${field}:`);
}

/** Audit entries for one entity, oldest first. */
export function auditOf(
  t: TestServer,
  entityId: string,
): { entity: string; action: string; after: string }[] {
  return t.server.context.sqlite
    .prepare("SELECT entity, action, after FROM audit_log WHERE entity_id = ? ORDER BY seq")
    .all(entityId) as { entity: string; action: string; after: string }[];
}

/** Moves the test clock so that it reads `targetMs` now. */
export function setClock(t: TestServer, targetMs: number): void {
  t.clock.advance(targetMs - t.clock.now().getTime());
}
