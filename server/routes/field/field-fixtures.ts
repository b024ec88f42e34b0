import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import type { ApiResponse, TestServer } from "../../testing/harness.ts";

/** Test-only helpers for the field model (devices and variables; projects and assets are on TestServer). */

export async function createDevice(
  t: TestServer,
  assetId: string,
  body: Record<string, unknown> = {},
  token?: string,
): Promise<string> {
  const res = await t.request<{ id: string }>(`/api/edge/assets/${assetId}/devices`, {
    token: token ?? (await t.admin()).token,
    body: { name: `plc-${randomUUID().slice(0, 8)}`, protocol: "modbus_tcp", ...body },
  });
  if (res.status !== 201) throw new Error(`create device failed: ${res.status} ${res.text}`);
  return res.body.id;
}

export async function createVariable(
  t: TestServer,
  deviceId: string,
  body: Record<string, unknown> = {},
  token?: string,
): Promise<string> {
  const res = await t.request<{ id: string }>(`/api/edge/devices/${deviceId}/variables`, {
    token: token ?? (await t.admin()).token,
    body: { alias: `tag_${randomUUID().slice(0, 8)}`, data_type: "float", ...body },
  });
  if (res.status !== 201) throw new Error(`create variable failed: ${res.status} ${res.text}`);
  return res.body.id;
}

/** A whole chain under a fresh project: project → well → device → variable. */
export async function createTree(t: TestServer) {
  const projectId = await t.project();
  const assetId = await t.asset(projectId);
  const deviceId = await createDevice(t, assetId);
  const variableId = await createVariable(t, deviceId);
  return { projectId, assetId, deviceId, variableId };
}

/** Asserts an error response: status, stable code and (optionally) the field the message names. */
export function expectError(res: ApiResponse, status: number, code: string, field?: string): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status, body: { error: code } });
  const message = (res.body as { message?: unknown }).message;
  expect(typeof message).toBe("string");
  if (field) expect(message).toContain(`${field}:`);
}

/** Audit entries for one entity, oldest first. */
export function auditOf(t: TestServer, entityId: string) {
  return t.server.context.sqlite
    .prepare(
      "SELECT entity, action, user_id, project_id, before, after FROM audit_log WHERE entity_id = ? ORDER BY seq",
    )
    .all(entityId) as {
    entity: string;
    action: string;
    user_id: string | null;
    project_id: string | null;
    before: string | null;
    after: string | null;
  }[];
}
