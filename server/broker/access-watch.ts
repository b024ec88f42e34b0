import type { Client } from "aedes";
import type { AuthContext } from "../services/auth/auth-context.ts";
import { sessionIsLive } from "../services/auth/sessions.ts";
import type { ServiceContext } from "../services/context.ts";
import { mqttCredentialExists } from "../services/mqtt-credentials/verify-credential.ts";
import { maySubscribe } from "./access.ts";
import type { ConnectionRegistry } from "./connection-registry.ts";
import { principalOf, setPrincipal } from "./principal.ts";
import { currentUserAuth } from "./user-access.ts";

/**
 * Keeps open connections within their access as it changes, from the services' events (emitted
 * after commit), as the WebSocket stream does: a revoked session, a deactivated user or a rotated
 * agent token ends the connection; a changed role or project assignment drops, at once, every
 * subscription the user may no longer hold; a revoked HMI credential, one given another host id
 * (each connection holds the one it logged in with), or its project deleted, ends the HMI's connections.
 */
export class AccessWatch {
  readonly #ctx: ServiceContext;
  readonly #registry: ConnectionRegistry;

  constructor(ctx: ServiceContext, registry: ConnectionRegistry) {
    this.#ctx = ctx;
    this.#registry = registry;
  }

  start(): void {
    this.#ctx.events.on("sessionRevoked", this.#onSessionRevoked);
    this.#ctx.events.on("accessChanged", this.#onAccessChanged);
    this.#ctx.events.on("agentTokenRotated", this.#onAgentTokenRotated);
    this.#ctx.events.on("mqttCredentialRevoked", this.#onCredentialRevoked);
    this.#ctx.events.on("mqttCredentialChanged", this.#onCredentialChanged);
    this.#ctx.events.on("projectDeleted", this.#onProjectDeleted);
  }

  stop(): void {
    this.#ctx.events.off("sessionRevoked", this.#onSessionRevoked);
    this.#ctx.events.off("accessChanged", this.#onAccessChanged);
    this.#ctx.events.off("agentTokenRotated", this.#onAgentTokenRotated);
    this.#ctx.events.off("mqttCredentialRevoked", this.#onCredentialRevoked);
    this.#ctx.events.off("mqttCredentialChanged", this.#onCredentialChanged);
    this.#ctx.events.off("projectDeleted", this.#onProjectDeleted);
  }

  /**
   * Re-reads a person's access and drops the subscriptions it no longer allows. False, and the
   * connection is closed, once the token has expired or the session ended.
   */
  async recheck(client: Client): Promise<boolean> {
    const p = principalOf(client);
    // A credential revoked while this connection was authenticating missed the event: close it now.
    if (p?.kind === "hmi" && !(await mqttCredentialExists(this.#ctx, p.credentialId))) {
      this.#ctx.logger.info("mqtt HMI credential revoked: disconnecting", { credential_id: p.credentialId });
      client.close();
      return false;
    }
    if (p?.kind !== "user") return true;
    const auth = await currentUserAuth(this.#ctx, p.auth);
    if (!auth) {
      this.#ctx.logger.info("mqtt user's access ended: disconnecting", { user_id: p.auth.userId });
      client.close();
      return false;
    }
    const now = { kind: "user" as const, auth };
    setPrincipal(client, now);
    const dropped = this.#registry.grantedFilters(client).filter((f) => !maySubscribe(now, f));
    if (dropped.length > 0) {
      this.#ctx.logger.info("mqtt subscriptions dropped after an access change", {
        user_id: auth.userId,
        filters: dropped,
      });
      // No messageId: aedes unsubscribes without writing an UNSUBACK the client never asked for.
      // The callback is required: aedes calls it unconditionally.
      client.unsubscribe({ cmd: "unsubscribe", unsubscriptions: dropped }, (err) => {
        if (err) this.#ctx.logger.warn("mqtt unsubscribe failed", { error: err.message });
      });
    }
    return true;
  }

  /** recheck from an event: a failure is logged, and the connection is closed to be safe. */
  async #recheckQuietly(client: Client): Promise<void> {
    try {
      await this.recheck(client);
    } catch (err) {
      this.#ctx.logger.error("mqtt access recheck failed: disconnecting", {
        client: client.id,
        error: err instanceof Error ? err.message : String(err),
      });
      client.close();
    }
  }

  readonly #onSessionRevoked = (): void => {
    for (const c of this.#registry.clients()) {
      const p = principalOf(c);
      if (p?.kind === "user") void this.#closeIfSessionEnded(c, p.auth);
    }
  };

  /** A person's connection whose session has ended is closed; so is one whose check failed, to be safe. */
  async #closeIfSessionEnded(client: Client, auth: AuthContext): Promise<void> {
    try {
      if (await sessionIsLive(this.#ctx, auth.sessionId)) return;
      this.#ctx.logger.info("session revoked: disconnecting mqtt user", { user_id: auth.userId });
    } catch (err) {
      this.#ctx.logger.error("mqtt session check failed: disconnecting", {
        client: client.id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
    client.close();
  }

  readonly #onAccessChanged = ({ userId }: { userId: string }): void => {
    for (const c of this.#registry.clients()) {
      const p = principalOf(c);
      if (p?.kind === "user" && p.auth.userId === userId) void this.#recheckQuietly(c);
    }
  };

  readonly #onCredentialRevoked = ({ credentialId }: { credentialId: string }): void => {
    for (const c of this.#registry.clients()) {
      const p = principalOf(c);
      if (p?.kind === "hmi" && p.credentialId === credentialId) {
        this.#ctx.logger.info("mqtt HMI credential revoked: disconnecting", { credential_id: credentialId });
        c.close();
      }
    }
  };

  readonly #onCredentialChanged = ({ credentialId }: { credentialId: string }): void => {
    for (const c of this.#registry.clients()) {
      const p = principalOf(c);
      if (p?.kind === "hmi" && p.credentialId === credentialId) {
        this.#ctx.logger.info("mqtt HMI credential's host id changed: disconnecting", {
          credential_id: credentialId,
        });
        c.close();
      }
    }
  };

  readonly #onProjectDeleted = ({ projectId }: { projectId: string }): void => {
    for (const c of this.#registry.clients()) {
      const p = principalOf(c);
      if (p?.kind === "hmi" && p.projectId === projectId) c.close();
    }
  };

  readonly #onAgentTokenRotated = ({ projectId }: { projectId: string }): void => {
    for (const c of this.#registry.clients()) {
      const p = principalOf(c);
      if (p?.kind === "agent" && p.projectId === projectId) {
        this.#ctx.logger.info("agent token rotated: disconnecting agent", { project_id: projectId });
        c.close();
      }
    }
  };
}
