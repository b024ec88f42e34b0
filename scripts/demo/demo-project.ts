import { z } from "zod";
import type { CaudalApi } from "./api-client.ts";
import {
  DEMO_ASSETS,
  DEMO_POLL_INTERVAL_MS,
  DEMO_PROJECT,
  DEMO_RULES,
  DEMO_SEPARATOR,
  tagsOf,
} from "./demo-field.ts";

const created = z.object({ id: z.uuid() });
const projectList = z.array(z.object({ id: z.uuid(), name: z.string(), created_at: z.string() }));
const variable = z.object({ id: z.uuid(), alias: z.string() });
const device = z.object({
  id: z.uuid(),
  name: z.string(),
  protocol: z.string(),
  host: z.string().nullable(),
  port: z.number().nullable(),
  slave_id: z.number().nullable(),
  enabled: z.boolean(),
  variables: z.array(variable),
});
const tree = z.object({
  assets: z.array(z.object({ id: z.uuid(), name: z.string(), devices: z.array(device) })),
});
const ruleList = z.array(z.object({ id: z.uuid(), name: z.string() }));

/** The simulator's Modbus TCP port and its OPC UA server's port. */
export type Simulator = { host: string; port: number; opcUaPort: number };
export type DemoProject = {
  projectId: string;
  assetIds: { well: string; tank: string; separator: string };
  /** Whether anything was created or changed, i.e. the agent needs a new deployment. */
  changed: boolean;
};

/**
 * Brings the demo project to the shape of demo-field.ts: finds each object by name and creates
 * what is missing. Existing objects are left as they are (a person may have edited them), except
 * a device's address, which must point at this run's simulator.
 */
export async function ensureDemoProject(api: CaudalApi, sim: Simulator): Promise<DemoProject> {
  let changed = false;
  const projects = await api.call("GET", "/api/edge/projects", 200, projectList);
  const existing = projects
    .filter((p) => p.name === DEMO_PROJECT.name)
    .sort((a, b) => a.created_at.localeCompare(b.created_at))[0];
  let projectId = existing?.id;
  if (!projectId) {
    projectId = (await api.call("POST", "/api/edge/projects", 201, created, DEMO_PROJECT)).id;
    changed = true;
  }

  const current = await api.call("GET", `/api/edge/projects/${projectId}/full`, 200, tree);
  const assetIds: Record<string, string> = {};
  for (const spec of DEMO_ASSETS) {
    const asset = current.assets.find((a) => a.name === spec.name);
    const deviceSpec = spec.device;
    const assetBody = {
      project_id: projectId,
      name: spec.name,
      asset_type: spec.asset_type,
      latitude: spec.latitude,
      longitude: spec.longitude,
    };
    const assetId = asset?.id ?? (await api.call("POST", "/api/edge/assets", 201, created, assetBody)).id;
    if (!asset) changed = true;
    assetIds[spec.key] = assetId;

    const address = { protocol: "modbus_tcp", host: sim.host, port: sim.port, slave_id: 1 } as const;
    const found = asset?.devices.find((d) => d.name === deviceSpec.name);
    let deviceId = found?.id;
    if (!deviceId) {
      const body = { name: deviceSpec.name, ...address };
      deviceId = (await api.call("POST", `/api/edge/assets/${assetId}/devices`, 201, created, body)).id;
      changed = true;
    } else if (
      found &&
      (found.protocol !== address.protocol || found.host !== sim.host || found.port !== sim.port)
    ) {
      // PUT replaces the device, so everything but the address is sent back as it was. The
      // simulator's port can differ between runs (SIM_PORT).
      const body = { name: found.name, ...address, slave_id: found.slave_id ?? 1, enabled: found.enabled };
      await api.call("PUT", `/api/edge/devices/${deviceId}`, 200, created, body);
      changed = true;
    }

    for (const tag of tagsOf(deviceSpec.tags)) {
      if (found?.variables.some((v) => v.alias === tag.alias)) continue;
      await api.call("POST", `/api/edge/devices/${deviceId}/variables`, 201, created, {
        alias: tag.alias,
        data_type: "float32",
        register_address: tag.register,
        register_kind: "holding",
        word_order: "ABCD",
        unit: tag.unit,
        poll_interval_ms: DEMO_POLL_INTERVAL_MS,
      });
      changed = true;
    }
  }

  const separator = await ensureSeparator(api, projectId, current, sim);
  changed ||= separator.changed;

  const rules = await api.call("GET", `/api/alert-rules?project_id=${projectId}`, 200, ruleList);
  for (const rule of DEMO_RULES) {
    if (rules.some((r) => r.name === rule.name)) continue;
    await api.call("POST", "/api/alert-rules", 201, created, { ...rule, project_id: projectId });
    changed = true;
  }

  const well = assetIds.well;
  const tank = assetIds.tank;
  if (!well || !tank) throw new Error("demo-field.ts must define the well and the tank");
  return { projectId, assetIds: { well, tank, separator: separator.assetId }, changed };
}

/** The separator and its OPC UA device, created when missing; the device follows the simulator's port. */
async function ensureSeparator(
  api: CaudalApi,
  projectId: string,
  current: z.infer<typeof tree>,
  sim: Simulator,
): Promise<{ assetId: string; changed: boolean }> {
  const spec = DEMO_SEPARATOR;
  let changed = false;
  const asset = current.assets.find((a) => a.name === spec.name);
  const assetId =
    asset?.id ??
    (
      await api.call("POST", "/api/edge/assets", 201, created, {
        project_id: projectId,
        name: spec.name,
        asset_type: spec.asset_type,
        latitude: spec.latitude,
        longitude: spec.longitude,
      })
    ).id;
  if (!asset) changed = true;
  const address = {
    protocol: "opc_ua",
    host: sim.host,
    port: sim.opcUaPort,
    settings: { security_mode: "None" },
  };
  const found = asset?.devices.find((d) => d.name === spec.device.name);
  let deviceId = found?.id;
  if (!deviceId) {
    const body = { name: spec.device.name, ...address };
    deviceId = (await api.call("POST", `/api/edge/assets/${assetId}/devices`, 201, created, body)).id;
    changed = true;
  } else if (found && (found.host !== sim.host || found.port !== sim.opcUaPort)) {
    const body = { name: found.name, ...address, enabled: found.enabled };
    await api.call("PUT", `/api/edge/devices/${deviceId}`, 200, created, body);
    changed = true;
  }
  for (const tag of spec.device.tags) {
    if (found?.variables.some((v) => v.alias === tag.alias)) continue;
    await api.call("POST", `/api/edge/devices/${deviceId}/variables`, 201, created, {
      alias: tag.alias,
      data_type: tag.data_type,
      address: tag.node_id,
      unit: tag.unit,
      poll_interval_ms: DEMO_POLL_INTERVAL_MS,
    });
    changed = true;
  }
  return { assetId, changed };
}
