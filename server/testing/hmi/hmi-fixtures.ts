import type { Credentials } from "../../broker/mosquitto-clients.ts";
import type { TestServer } from "../harness.ts";

/** Test support for the HMI namespaces: credentials and project names through the REST API. */

/**
 * An HMI login of the project, issued through POST /api/edge/projects/{id}/mqtt-credentials;
 * `primaryHostId`: the host id whose STATE it may publish.
 */
export async function hmiCredentials(
  t: TestServer,
  projectId: string,
  name = "test HMI",
  primaryHostId: string | null = null,
): Promise<Credentials & { id: string }> {
  const res = await t.request<{ id: string; username: string; password: string }>(
    `/api/edge/projects/${projectId}/mqtt-credentials`,
    { token: (await t.admin()).token, body: { name, primary_host_id: primaryHostId } },
  );
  if (res.status !== 201) throw new Error(`issue credential failed: ${res.status} ${res.text}`);
  return { id: res.body.id, username: res.body.username, password: res.body.password };
}

export async function revokeHmiCredentials(t: TestServer, projectId: string, credentialId: string) {
  const res = await t.request(`/api/edge/projects/${projectId}/mqtt-credentials/${credentialId}`, {
    method: "DELETE",
    token: (await t.admin()).token,
  });
  if (res.status !== 204) throw new Error(`revoke failed: ${res.status} ${res.text}`);
}

/** The project's slug, edge node id and primary host id, as GET /api/edge/projects/{id} shows them. */
export async function projectNames(
  t: TestServer,
  projectId: string,
): Promise<{ slug: string; node: string; host: string | null }> {
  const res = await t.request<{
    slug: string;
    sparkplug_edge_node_id: string;
    sparkplug_primary_host_id: string | null;
  }>(`/api/edge/projects/${projectId}`, { token: (await t.admin()).token });
  if (res.status !== 200) throw new Error(`get project failed: ${res.status} ${res.text}`);
  return {
    slug: res.body.slug,
    node: res.body.sparkplug_edge_node_id,
    host: res.body.sparkplug_primary_host_id,
  };
}

/** Sets fields of a project through PUT, keeping its name. */
export async function updateProject(t: TestServer, projectId: string, fields: Record<string, unknown>) {
  const token = (await t.admin()).token;
  const current = await t.request<{ name: string }>(`/api/edge/projects/${projectId}`, { token });
  const res = await t.request(`/api/edge/projects/${projectId}`, {
    method: "PUT",
    token,
    body: { name: current.body.name, auto_deploy: false, ...fields },
  });
  if (res.status !== 200) throw new Error(`update project failed: ${res.status} ${res.text}`);
}

export type SiteVariable = {
  alias: string;
  data_type: string;
  unit?: string;
  scale_factor?: number;
  enabled?: boolean;
};

export type Site = {
  projectId: string;
  slug: string;
  agent: Credentials;
  hmi: Credentials & { id: string };
  /** Asset ids by name, and each asset's device. */
  assets: Record<string, { id: string; deviceId: string }>;
};

/**
 * A project with assets, one Modbus device per asset with the variables given (registers two
 * apart), an agent token and an HMI login (given the project's primary host id, if any), all
 * through the REST API. No automatic deployment.
 */
export async function hmiSite(
  t: TestServer,
  name: string,
  assets: Record<string, SiteVariable[]>,
  project: Record<string, unknown> = {},
): Promise<Site> {
  const token = (await t.admin()).token;
  const post = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await t.request<T>(path, { token, method: "POST", ...(body === undefined ? {} : { body }) });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const created = await post<{ id: string; slug: string }>("/api/edge/projects", {
    name,
    auto_deploy: false,
    ...project,
  });
  const out: Site["assets"] = {};
  for (const [assetName, variables] of Object.entries(assets)) {
    const asset = await post<{ id: string }>("/api/edge/assets", {
      project_id: created.id,
      name: assetName,
      asset_type: "well",
    });
    const device = await post<{ id: string }>(`/api/edge/assets/${asset.id}/devices`, {
      name: `${assetName} PLC`,
      protocol: "modbus_tcp",
      host: "10.0.0.10",
      port: 502,
      slave_id: 1,
    });
    for (const [i, v] of variables.entries()) {
      await post(`/api/edge/devices/${device.id}/variables`, { register_address: i * 2, ...v });
    }
    out[assetName] = { id: asset.id, deviceId: device.id };
  }
  const issued = await post<{ agent_token: string }>(`/api/edge/projects/${created.id}/agent-token`);
  return {
    projectId: created.id,
    slug: created.slug,
    agent: { username: `agent:${created.id}`, password: issued.agent_token },
    hmi: await hmiCredentials(t, created.id, "test HMI", primaryHostOf(project)),
    assets: out,
  };
}

function primaryHostOf(project: Record<string, unknown>): string | null {
  const host = project.sparkplug_primary_host_id;
  return typeof host === "string" ? host : null;
}
