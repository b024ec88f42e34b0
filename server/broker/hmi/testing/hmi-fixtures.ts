import type { TestServer } from "../../../testing/harness.ts";
import type { Credentials } from "../../mosquitto-clients.ts";

/** Test support for the HMI namespaces: credentials and project names through the REST API. */

/** An HMI login of the project, issued through POST /api/edge/projects/{id}/mqtt-credentials. */
export async function hmiCredentials(
  t: TestServer,
  projectId: string,
  name = "test HMI",
): Promise<Credentials & { id: string }> {
  const res = await t.request<{ id: string; username: string; password: string }>(
    `/api/edge/projects/${projectId}/mqtt-credentials`,
    { token: (await t.admin()).token, body: { name } },
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
