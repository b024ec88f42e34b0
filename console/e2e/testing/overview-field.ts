import { expect } from "vitest";
import type { TestServer } from "../../../server/testing/harness.ts";
import { created } from "./agent-field.ts";

const MIN = 60_000;

type Payload = {
  asset_id: string;
  timestamp: string;
  readings: { variable: string; value: number; unit?: string }[];
};

/** POST /api/telemetry/batch in requests of at most 10,000 readings (the API's limit). */
export async function writeHistory(t: TestServer, token: string, items: Payload[]): Promise<void> {
  let batch: Payload[] = [];
  let readings = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const res = await t.request("/api/telemetry/batch", { token, body: { items: batch } });
    expect(res.status, res.text).toBe(201);
    batch = [];
    readings = 0;
  };
  for (const item of items) {
    if (readings + item.readings.length > 10_000) await flush();
    batch.push(item);
    readings += item.readings.length;
  }
  await flush();
}

/** Every `stepMs` over the last `hours`, oldest first, ending a step before now. */
function pastInstants(hours: number, stepMs: number, now: number): number[] {
  const out: number[] = [];
  for (let ts = now - hours * 3_600_000; ts < now - stepMs / 2; ts += stepMs) out.push(ts);
  return out;
}

/**
 * A project as an operator finds it at the start of a shift: a well polled every minute with
 * 6 hours of history and two alert rules (its pressure in alarm now), a tank whose last level is
 * half an hour old (stale), a station that never reported, and production recorded today and
 * yesterday at this hour. Names are Spanish, as in the field.
 */
export async function shiftField(t: TestServer, token: string) {
  const now = Date.now();
  const projectId = await created(t, token, "/api/edge/projects", {
    name: "Campo Rubiales",
    location: "Puerto Gaitán, Meta",
    timezone: "America/Bogota",
  });
  const asset = (name: string, asset_type: string) =>
    created(t, token, "/api/edge/assets", { project_id: projectId, name, asset_type });
  const wellId = await asset("Pozo RB-12", "well");
  const tankId = await asset("Tanque TK-3", "tank");
  await asset("Estación Norte", "station");
  const deviceId = await created(t, token, `/api/edge/assets/${wellId}/devices`, {
    name: "PLC pozo",
    protocol: "modbus_tcp",
  });
  for (const [alias, unit] of [
    ["pressure", "psi"],
    ["temperature", "degF"],
    ["oil_rate", "bbl/d"],
    ["water_cut", "%"],
    ["gas_rate", "Mscf/d"],
  ] as const) {
    await created(t, token, `/api/edge/devices/${deviceId}/variables`, {
      alias,
      data_type: "float",
      unit,
      poll_interval_ms: 60_000,
    });
  }
  for (const rule of [
    {
      name: "Presión alta",
      variable_alias: "pressure",
      condition: "gt",
      threshold: 1500,
      severity: "critical",
    },
    {
      name: "Temperatura alta",
      variable_alias: "temperature",
      condition: "gt",
      threshold: 200,
      severity: "warning",
    },
    { name: "Nivel bajo", variable_alias: "level", condition: "lt", threshold: 2, severity: "warning" },
  ]) {
    await created(t, token, "/api/alert-rules", { project_id: projectId, ...rule });
  }
  const history: Payload[] = pastInstants(6, MIN, now).map((ts, i) => ({
    asset_id: wellId,
    timestamp: new Date(ts).toISOString(),
    readings: [
      { variable: "pressure", value: Math.round(1200 + 150 * Math.sin(i / 40)), unit: "psi" },
      { variable: "temperature", value: Math.round(1800 + 40 * Math.cos(i / 25)) / 10, unit: "degF" },
      { variable: "oil_rate", value: Math.round(4200 + 300 * Math.sin(i / 60)) / 10, unit: "bbl/d" },
      { variable: "water_cut", value: Math.round(320 + 15 * Math.sin(i / 15)) / 10, unit: "%" },
      { variable: "gas_rate", value: 150 + (i % 7), unit: "Mscf/d" },
    ],
  }));
  for (const ts of pastInstants(6, 5 * MIN, now - 30 * MIN))
    history.push({
      asset_id: tankId,
      timestamp: new Date(ts).toISOString(),
      readings: [{ variable: "level", value: Math.round(120 - (now - ts) / 600_000) / 10, unit: "ft" }],
    });
  await writeHistory(t, token, history);
  // Now: pressure above its rule (a critical alarm).
  await writeHistory(t, token, [
    {
      asset_id: wellId,
      timestamp: new Date(now).toISOString(),
      readings: [{ variable: "pressure", value: 1650 }],
    },
  ]);
  const movement = (volume: number, ts: number) =>
    created(t, token, "/api/movements", {
      project_id: projectId,
      movement_type: "production",
      volume_bbls: volume,
      timestamp: new Date(ts).toISOString(),
    });
  await movement(1250.5, now - 30_000);
  await movement(1100, now - 86_400_000 - 30_000);
  return { projectId, wellId, tankId };
}

/**
 * A project of `assets` assets with `perAsset` variables each, every one with a value now and
 * 6 hours of 5-minute history (what the sparklines read).
 */
export async function largeField(t: TestServer, token: string, assets: number, perAsset: number) {
  const now = Date.now();
  const projectId = await created(t, token, "/api/edge/projects", { name: "Campo Grande" });
  const assetIds: string[] = [];
  for (let a = 0; a < assets; a++)
    assetIds.push(
      await created(t, token, "/api/edge/assets", {
        project_id: projectId,
        name: `Pozo ${String(a + 1).padStart(3, "0")}`,
        asset_type: "well",
      }),
    );
  const names = Array.from({ length: perAsset }, (_, i) => `tag_${String(i).padStart(2, "0")}`);
  const items: Payload[] = [];
  for (const ts of [...pastInstants(6, 5 * MIN, now), now])
    for (const assetId of assetIds)
      items.push({
        asset_id: assetId,
        timestamp: new Date(ts).toISOString(),
        readings: names.map((variable, i) => ({ variable, value: Math.round(ts / 60_000 + i) % 1000 })),
      });
  await writeHistory(t, token, items);
  return { projectId, assetIds, names };
}
