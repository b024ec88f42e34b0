import { randomUUID } from "node:crypto";
import type { variables } from "../../../server/store/sqlite/schema/index.ts";
import { type SyncBenchServer, startSyncBenchServer } from "../sync/fixtures.ts";

export type SparkplugSite = {
  bench: SyncBenchServer;
  projectId: string;
  slug: string;
  agentToken: string;
  hmi: { username: string; password: string };
  devices: { assetId: string; variables: string[] }[];
};

async function post<T>(base: string, path: string, token: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/**
 * A real CaudalServer (sync/fixtures.ts) with one project of `devices` wells, each with one
 * Modbus device of `metrics` float32 variables, an agent token and an HMI credential. Devices go
 * through the REST API; the 10,000 variables straight into the database in one transaction
 * (through the API they would take minutes), after which the change is announced as the
 * services announce it.
 */
export async function sparkplugSite(devices: number, metrics: number): Promise<SparkplugSite> {
  const bench = await startSyncBenchServer();
  const { base, token, server } = bench;
  const project = await bench.project("Sparkplug bench", devices);
  const out: SparkplugSite["devices"] = [];
  const rows: (typeof variables.$inferInsert)[] = [];
  const now = new Date();
  for (const [i, assetId] of project.assets.entries()) {
    const device = await post<{ id: string }>(base, `/api/edge/assets/${assetId}/devices`, token, {
      name: `plc-${i}`,
      protocol: "modbus_tcp",
      host: "10.0.0.1",
      port: 502,
      slave_id: 1,
    });
    const names = Array.from({ length: metrics }, (_, v) => `tag_${String(v).padStart(3, "0")}`);
    names.forEach((alias, v) => {
      rows.push({
        id: randomUUID(),
        deviceId: device.id,
        alias,
        dataType: "float32",
        registerAddress: v * 2,
        unit: "psi",
        createdAt: now,
        updatedAt: now,
      });
    });
    out.push({ assetId, variables: names });
  }
  const { store, events } = server.context;
  await store.transaction(async (tx) => {
    for (const row of rows) await tx.field.insertVariable(row);
  });
  events.emit("configChanged", { projectId: project.id });
  const hmi = await post<{ username: string; password: string }>(
    base,
    `/api/edge/projects/${project.id}/mqtt-credentials`,
    token,
    { name: "bench HMI" },
  );
  const got = await fetch(`${base}/api/edge/projects/${project.id}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const { slug } = (await got.json()) as { slug: string };
  return { bench, projectId: project.id, slug, agentToken: project.agentToken, hmi, devices: out };
}
