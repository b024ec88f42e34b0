import type { StorePorts } from "../../store/store.ts";

/** Series per project whose newest reading is read (a bound, far above a real project). */
const SERIES_LIMIT = 20_000;

/**
 * When the server last received a reading of each device of the project: the newest reading
 * of the series its variables feed (the device's asset, a variable's alias), as telemetry_series
 * keeps it (no raw row is read). The agent's heartbeat says when it last read, every 15 s; this is
 * what a device polled every second looks like from here. Devices with no reading are left out.
 */
export async function newestReadingByDevice(
  ports: Pick<StorePorts, "field" | "telemetry">,
  projectId: string,
): Promise<Map<string, number>> {
  const assets = await ports.field.assetsOf(projectId);
  const devices = await ports.field.devicesOf(assets.map((a) => a.id));
  const [variables, readings] = await Promise.all([
    ports.field.variablesOf(devices.map((d) => d.id)),
    ports.telemetry.recentReadings(SERIES_LIMIT, [projectId]),
  ]);
  const newestOfSeries = new Map(readings.map((r) => [`${r.assetId}\u0000${r.variable}`, r.ts]));
  const assetOf = new Map(devices.map((d) => [d.id, d.assetId]));
  const out = new Map<string, number>();
  for (const v of variables) {
    const assetId = assetOf.get(v.deviceId);
    const ts = assetId === undefined ? undefined : newestOfSeries.get(`${assetId}\u0000${v.alias}`);
    if (ts !== undefined) out.set(v.deviceId, Math.max(out.get(v.deviceId) ?? ts, ts));
  }
  return out;
}
