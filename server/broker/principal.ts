import type { Client } from "aedes";
import type { AuthContext } from "../services/auth/auth-context.ts";

/** Who is behind an MQTT connection: a project's agent, a person, or an HMI's read-only login. */
export type Principal =
  | { kind: "agent"; projectId: string }
  | { kind: "user"; auth: AuthContext }
  /** primaryHostId: the Sparkplug host id whose STATE the login may publish, as it logged in (null: none). */
  | { kind: "hmi"; credentialId: string; projectId: string; primaryHostId: string | null };

const principals = new WeakMap<Client, Principal>();

export function setPrincipal(client: Client, p: Principal): void {
  principals.set(client, p);
}

export function principalOf(client: Client | null | undefined): Principal | undefined {
  return client ? principals.get(client) : undefined;
}
