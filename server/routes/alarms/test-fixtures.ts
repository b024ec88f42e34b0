import { expect } from "vitest";
import type { AlarmNotice } from "../../services/events.ts";
import type { ApiResponse, TestServer } from "../../testing/harness.ts";

/** Fixtures shared by the alert-rule and alarm tests (imported by *.test.ts only). */

export type Party = { id: string; token: string };

export type AlarmWorld = {
  projectId: string;
  assetId: string;
  /** A project (with an asset) the role users are not assigned to. */
  foreignProjectId: string;
  foreignAssetId: string;
  admin: string;
  supervisor: Party;
  operador: Party;
  reader: Party;
};

/** Two projects with an asset each, and a supervisor, an operador and an anh_reader on the first. */
export async function alarmWorld(t: TestServer): Promise<AlarmWorld> {
  const admin = (await t.admin()).token;
  const projectId = await t.project();
  const foreignProjectId = await t.project();
  const [assetId, foreignAssetId] = await Promise.all([t.asset(projectId), t.asset(foreignProjectId)]);
  const [supervisor, operador, reader] = await Promise.all([
    t.userWithRole("supervisor", [projectId]),
    t.userWithRole("operador", [projectId]),
    t.userWithRole("anh_reader", [projectId]),
  ]);
  return { projectId, assetId, foreignProjectId, foreignAssetId, admin, supervisor, operador, reader };
}

/**
 * Reading times of the tests: a whole minute a day ago, so offsets stay within the raw retention
 * window and are never ahead of the server clock (ingest refuses both).
 */
export const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 86_400_000;

/** T0 + `seconds`, as ISO 8601. */
export const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

/**
 * Ingests one payload through POST /api/telemetry (as the superadmin unless `token` is given).
 * Ingest emits the committed event before it answers and the alarm engine handles it
 * synchronously, so alarms are stored once this resolves.
 */
export async function sendTelemetry(
  t: TestServer,
  assetId: string,
  seconds: number,
  readings: Record<string, number>,
  token?: string,
): Promise<void> {
  const res = await t.request("/api/telemetry", {
    token: token ?? (await t.admin()).token,
    body: {
      asset_id: assetId,
      timestamp: at(seconds),
      readings: Object.entries(readings).map(([variable, value]) => ({ variable, value })),
    },
  });
  if (res.status !== 201) throw new Error(`ingest failed: ${res.status} ${res.text}`);
}

/** Records every alarm notice emitted on ctx.events until `stop()`. */
export function recordNotices(t: TestServer): { notices: AlarmNotice[]; stop(): void } {
  const notices: AlarmNotice[] = [];
  const listener = (n: AlarmNotice) => notices.push(n);
  t.server.context.events.on("alarm", listener);
  return { notices, stop: () => t.server.context.events.off("alarm", listener) };
}

export function expectError(res: ApiResponse, status: number, error?: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({
    status,
    body: { error: error ?? expect.any(String), message: expect.any(String) },
  });
}

export type RuleBody = {
  project_id: string;
  name: string;
  variable_alias: string;
  condition: string;
  threshold: number;
  severity: string;
  deadband?: number;
  delay_seconds?: number;
  is_enabled?: boolean;
};

/** Creates a rule through the API (as the superadmin unless `token` is given); its id. */
export async function createRule(
  t: TestServer,
  body: Partial<RuleBody> & { project_id: string },
  token?: string,
): Promise<string> {
  const res = await t.request<{ id: string }>("/api/alert-rules", {
    token: token ?? (await t.admin()).token,
    body: {
      name: "High pressure",
      variable_alias: "pressure",
      condition: "gt",
      threshold: 100,
      severity: "warning",
      ...body,
    },
  });
  if (res.status !== 201) throw new Error(`create rule failed: ${res.status} ${res.text}`);
  return res.body.id;
}
