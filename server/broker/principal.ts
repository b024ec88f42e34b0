import type { Client } from "aedes";
import type { AuthContext } from "../services/auth/auth-context.ts";

/** Who is behind an MQTT connection. */
export type Principal = { kind: "agent"; projectId: string } | { kind: "user"; auth: AuthContext };

const principals = new WeakMap<Client, Principal>();

export function setPrincipal(client: Client, p: Principal): void {
  principals.set(client, p);
}

export function principalOf(client: Client | null | undefined): Principal | undefined {
  return client ? principals.get(client) : undefined;
}
