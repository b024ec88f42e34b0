import type { AuthenticateError, Client } from "aedes";
import { agentTokenValid } from "../services/agents/agent-token.ts";
import { resolveAccessToken } from "../services/auth/sessions.ts";
import type { ServiceContext } from "../services/context.ts";
import { isHmiUsername, verifyMqttCredential } from "../services/mqtt-credentials/verify-credential.ts";
import type { ConnectionRegistry } from "./connection-registry.ts";
import { setPrincipal } from "./principal.ts";

// [MQTT-3.2.2-3] CONNACK return codes.
const SERVER_UNAVAILABLE = 3;
const BAD_CREDENTIALS = 4;
const NOT_AUTHORIZED = 5;

function authError(message: string, code: number): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: code }) as AuthenticateError;
}

const AGENT_USER = /^agent:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export type Authenticator = {
  ctx: ServiceContext;
  registry: ConnectionRegistry;
  maxConnectionsPerUser: number;
  /** Ends a person's connection when its access token expires. */
  onTokenExpired: (client: Client) => void;
};

/**
 * CONNECT: an agent logs in as `agent:<project_id>` with the project's agent token, and replaces
 * any earlier connection of that agent (one agent per project); an HMI logs in as `hmi:<id>` with
 * its credential's password; a person logs in with their email and a current access token until
 * the token's `exp`. People and HMI credentials each have a cap of simultaneous connections.
 * Throws an AuthenticateError carrying the CONNACK return code.
 */
export async function authenticate(
  a: Authenticator,
  client: Client,
  username: string | undefined,
  password: Buffer | undefined,
): Promise<void> {
  if (!username || !password) throw authError("username and password are required", BAD_CREDENTIALS);
  const secret = password.toString("utf8");
  const agent = AGENT_USER.exec(username);
  if (agent?.[1]) {
    const projectId = agent[1];
    if (!(await agentTokenValid(a.ctx, projectId, secret)))
      throw authError("invalid agent token", BAD_CREDENTIALS);
    setPrincipal(client, { kind: "agent", projectId });
    if (!a.registry.authenticated(client)) throw authError("connection closed", BAD_CREDENTIALS);
    for (const old of a.registry.agentConnections(projectId, client)) {
      a.ctx.logger.info("agent connected again: closing its previous connection", { project_id: projectId });
      a.registry.supersede(old);
      old.close();
    }
    return;
  }
  if (isHmiUsername(username)) {
    const hmi = await verifyMqttCredential(a.ctx, username, secret);
    if (!hmi) throw authError("invalid HMI credentials", BAD_CREDENTIALS);
    if (a.registry.hmiConnections(hmi.credentialId) >= a.maxConnectionsPerUser) {
      a.ctx.logger.warn("mqtt connection refused: too many connections", { credential_id: hmi.credentialId });
      throw authError("too many connections for this credential", SERVER_UNAVAILABLE);
    }
    setPrincipal(client, { kind: "hmi", ...hmi });
    if (!a.registry.authenticated(client)) throw authError("connection closed", BAD_CREDENTIALS);
    return;
  }
  const resolved = await resolveAccessToken(a.ctx, secret);
  if (!resolved.ok) throw authError(`access token ${resolved.reason}`, BAD_CREDENTIALS);
  const { auth } = resolved;
  if (auth.email !== username.trim().toLowerCase()) {
    throw authError("the access token belongs to another user", NOT_AUTHORIZED);
  }
  if (a.registry.userConnections(auth.userId) >= a.maxConnectionsPerUser) {
    a.ctx.logger.warn("mqtt connection refused: too many connections", { user_id: auth.userId });
    throw authError("too many connections for this user", SERVER_UNAVAILABLE);
  }
  setPrincipal(client, { kind: "user", auth });
  if (!a.registry.authenticated(client)) throw authError("connection closed", BAD_CREDENTIALS);
  a.registry.expireAt(
    client,
    auth.expiresAt * 1000,
    () => a.ctx.clock.now().getTime(),
    () => a.onTokenExpired(client),
  );
}
