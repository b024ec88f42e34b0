import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:net";
import type { Duplex } from "node:stream";
import { Aedes, type AuthenticateError, type Client } from "aedes";
import { type Payload, topics } from "../../shared/mqtt/topics.ts";
import type { Logger } from "../logger.ts";
import { agentTokenValid } from "../services/agents/agent-token.ts";
import { latestConfigMessages } from "../services/agents/deploy.ts";
import { resolveAccessToken, sessionIsLive } from "../services/auth/sessions.ts";
import type { ServiceContext } from "../services/context.ts";
import { mayPublish, maySubscribe } from "./access.ts";
import { LiveValues } from "./live-values.ts";
import { type MessageRouter, routeMessage } from "./messages.ts";
import { principalOf, setPrincipal } from "./principal.ts";

// [MQTT-3.2.2-3] CONNACK return codes.
const BAD_CREDENTIALS = 4;
const NOT_AUTHORIZED = 5;

function authError(message: string, code: number): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: code }) as AuthenticateError;
}

const AGENT_USER = /^agent:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * The embedded MQTT broker (aedes): agents sync through it, HMIs read from it. TCP on
 * MQTT_PORT; MQTT over WebSocket is handed in by the HTTP server (path /mqtt).
 */
export class MqttBroker {
  readonly #ctx: ServiceContext;
  readonly #logger: Logger;
  readonly #router: MessageRouter;
  #aedes: Aedes | undefined;
  #tcp: Server | undefined;
  readonly #clients = new Set<Client>();
  #unsubscribe: (() => void) | undefined;

  constructor(ctx: ServiceContext, router: MessageRouter) {
    this.#ctx = ctx;
    this.#logger = ctx.logger;
    this.#router = router;
  }

  get isUp(): boolean {
    return Boolean(this.#aedes && !this.#aedes.closed && this.#tcp?.listening);
  }

  get port(): number {
    return (this.#tcp?.address() as AddressInfo | null)?.port ?? 0;
  }

  get connectedClients(): number {
    return this.#aedes?.connectedClients ?? 0;
  }

  async start(port: number, host: string): Promise<void> {
    const aedes = await Aedes.createBroker({
      drainTimeout: 30_000,
      authenticate: (client, username, password, done) => {
        this.#authenticate(client, username, password).then(
          () => done(null, true),
          (err: AuthenticateError) => done(err, false),
        );
      },
      authorizePublish: (client, packet, done) => {
        // client === null: the server's own publish (acks, retained config, live values).
        if (client === null) return done(null);
        if (packet.topic.startsWith("$SYS/") || !mayPublish(principalOf(client), packet.topic)) {
          return done(new Error(`publish to ${packet.topic} refused`));
        }
        done(null);
      },
      authorizeSubscribe: (client, subscription, done) => {
        if (!maySubscribe(principalOf(client), subscription.topic)) {
          // [MQTT-3.9.3] a refused filter gets return code 0x80 in the SUBACK; the connection and its
          // other subscriptions stay (an error here would drop the client, and it would loop reconnecting).
          this.#logger.debug("mqtt subscription refused", { client: client.id, topic: subscription.topic });
          return done(null, null);
        }
        done(null, subscription);
      },
      published: (packet, client, done) => {
        const p = principalOf(client);
        if (p?.kind !== "agent") return done();
        routeMessage(this.#router, p.projectId, packet.topic, packet.payload as Buffer, (topic, body) =>
          this.publish(topic, body, false),
        ).then(
          () => done(),
          (err: unknown) => {
            this.#logger.error("mqtt message handling failed", {
              topic: packet.topic,
              error: err instanceof Error ? err.message : String(err),
            });
            done();
          },
        );
      },
    });
    aedes.on("client", (c) => this.#clients.add(c));
    aedes.on("clientDisconnect", (c) => this.#clients.delete(c));
    aedes.on("clientError", (c, err) =>
      this.#logger.debug("mqtt client error", { client: c.id, error: err.message }),
    );
    this.#aedes = aedes;

    const onRotated = ({ projectId }: { projectId: string }) => this.#disconnectAgents(projectId);
    const onSessionRevoked = () => this.#disconnectRevokedUsers();
    const onDeployment = ({ projectId, message }: { projectId: string; message: Payload<"config"> }) => {
      this.publish(topics.config(projectId), message, true).catch((err: unknown) =>
        this.#logger.error("publishing a deployment failed", {
          project_id: projectId,
          error: err instanceof Error ? err.message : String(err),
        }),
      );
    };
    const live = new LiveValues((topic, payload) => this.publish(topic, payload, true, 0));
    live.start();
    this.#ctx.events.on("agentTokenRotated", onRotated);
    this.#ctx.events.on("deploymentCreated", onDeployment);
    this.#ctx.events.on("sessionRevoked", onSessionRevoked);
    this.#ctx.events.on("telemetry", live.observe);
    this.#unsubscribe = () => {
      this.#ctx.events.off("agentTokenRotated", onRotated);
      this.#ctx.events.off("sessionRevoked", onSessionRevoked);
      this.#ctx.events.off("deploymentCreated", onDeployment);
      this.#ctx.events.off("telemetry", live.observe);
      live.stop();
    };
    // Retained messages live in memory: put every project's newest configuration back.
    for (const { projectId, message } of latestConfigMessages(this.#ctx))
      onDeployment({ projectId, message });

    // TCP_NODELAY: MQTT's small packets (PUBACK, the application ack after each commit) must leave at
    // once. With Nagle's algorithm each ack waited for the peer's delayed TCP ACK: measured 15 ms per
    // ack on loopback, a third of an agent's backlog round trip (drain 115k → 185k points/s without).
    const tcp = createServer({ noDelay: true }, (socket) => aedes.handle(socket));
    this.#tcp = tcp;
    await new Promise<void>((resolve, reject) => {
      tcp.once("error", reject);
      tcp.listen(port, host, () => resolve());
    });
    this.#logger.info("mqtt listening", { host, port: this.port });
  }

  /** MQTT over WebSocket: the HTTP server hands over the upgraded stream. */
  handle(stream: Duplex, request: IncomingMessage): void {
    this.#aedes?.handle(stream, request);
  }

  publish(topic: string, payload: unknown, retain: boolean, qos: 0 | 1 = 1): Promise<void> {
    const aedes = this.#aedes;
    if (!aedes) return Promise.resolve();
    return new Promise((resolve, reject) => {
      aedes.publish(
        { cmd: "publish", topic, payload: Buffer.from(JSON.stringify(payload)), qos, retain, dup: false },
        (err) => (err ? reject(err) : resolve()),
      );
    });
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    for (const c of this.#clients) c.close();
    const tcp = this.#tcp;
    this.#tcp = undefined;
    if (tcp) await new Promise<void>((resolve) => tcp.close(() => resolve()));
    const aedes = this.#aedes;
    this.#aedes = undefined;
    if (aedes) await new Promise<void>((resolve) => aedes.close(() => resolve()));
  }

  async #authenticate(
    client: Client,
    username: string | undefined,
    password: Buffer | undefined,
  ): Promise<void> {
    if (!username || !password) throw authError("username and password are required", BAD_CREDENTIALS);
    const secret = password.toString("utf8");
    const agent = AGENT_USER.exec(username);
    if (agent?.[1]) {
      if (!agentTokenValid(this.#ctx, agent[1], secret))
        throw authError("invalid agent token", BAD_CREDENTIALS);
      setPrincipal(client, { kind: "agent", projectId: agent[1] });
      return;
    }
    const resolved = await resolveAccessToken(this.#ctx, secret);
    if (!resolved.ok) throw authError(`access token ${resolved.reason}`, BAD_CREDENTIALS);
    if (resolved.auth.email !== username.trim().toLowerCase()) {
      throw authError("the access token belongs to another user", NOT_AUTHORIZED);
    }
    setPrincipal(client, { kind: "user", auth: resolved.auth });
  }

  /** Users authenticate once, at CONNECT: a logout, deactivation or revoked session ends their connection too. */
  #disconnectRevokedUsers(): void {
    for (const c of this.#clients) {
      const p = principalOf(c);
      if (p?.kind === "user" && !sessionIsLive(this.#ctx, p.auth.sessionId)) {
        this.#logger.info("session revoked: disconnecting mqtt user", { user_id: p.auth.userId });
        c.close();
      }
    }
  }

  #disconnectAgents(projectId: string): void {
    for (const c of this.#clients) {
      const p = principalOf(c);
      if (p?.kind === "agent" && p.projectId === projectId) {
        this.#logger.info("agent token rotated: disconnecting agent", { project_id: projectId });
        c.close();
      }
    }
  }
}
