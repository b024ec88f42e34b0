import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:net";
import type { Duplex } from "node:stream";
import {
  Aedes,
  type AuthenticateError,
  type AuthorizePublishHandler,
  type AuthorizeSubscribeHandler,
  type Client,
  type PublishPacket,
  type Subscription,
} from "aedes";
import { type Payload, topics } from "../../shared/mqtt/topics.ts";
import type { Logger } from "../logger.ts";
import { latestConfigMessages } from "../services/agents/deploy.ts";
import type { ServiceContext } from "../services/context.ts";
import { mayReceive, mayRetain, maySubscribe, publishableAs } from "./access.ts";
import { AccessWatch } from "./access-watch.ts";
import { authenticate } from "./authenticate.ts";
import { type BrokerLimits, ConnectionRegistry, DEFAULT_BROKER_LIMITS } from "./connection-registry.ts";
import { deliverDirect, interceptPublishes } from "./direct-delivery.ts";
import { type HmiPublish, hmiMayReceive, hmiMaySubscribe, hmiPublish } from "./hmi/hmi-access.ts";
import { HmiNamespaces } from "./hmi/hmi-namespaces.ts";
import { IngestWindow } from "./ingest-window.ts";
import { LiveValues } from "./live-values.ts";
import {
  carriedMessage,
  carryMessage,
  type MessageRouter,
  parseAgentMessage,
  payloadForPeople,
  routeMessage,
} from "./messages.ts";
import { PacketSizeGuard, PacketTooLarge } from "./packet-size-guard.ts";
import { principalOf } from "./principal.ts";
import { PublishPacer } from "./publish-pacer.ts";

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The embedded MQTT broker (aedes): agents sync through it, HMIs read from it. TCP on
 * MQTT_PORT; MQTT over WebSocket is handed in by the HTTP server (path /mqtt).
 */
export class MqttBroker {
  readonly #ctx: ServiceContext;
  readonly #logger: Logger;
  readonly #router: MessageRouter;
  readonly #limits: BrokerLimits;
  readonly #registry: ConnectionRegistry;
  readonly #watch: AccessWatch;
  /**
   * The payloads of agent publishes that failed their topic's schema (aedes hands the same Buffer
   * to authorizeForward): forwarded to no one. A valid one is only carried on its packet
   * (messages.ts, carryMessage): a WeakMap entry a message was 2.7% of the main thread.
   */
  readonly #refused = new WeakSet<Buffer>();
  /** Each HMI publish parsed once, in authorizePublish, the same way. */
  readonly #hmiPublishes = new WeakMap<Buffer, HmiPublish>();
  /** Sparkplug B and the unified namespace; its project names feed the HMI access checks. */
  readonly #hmi: HmiNamespaces;
  /** Live values, UNS and Sparkplug go through it (publish-pacer.ts); acks and configurations do not. */
  readonly #pacer: PublishPacer;
  /** Agent batches read ahead of their commit, per connection (ingest-window.ts). */
  readonly #ingest: IngestWindow;
  #aedes: Aedes | undefined;
  #tcp: Server | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(ctx: ServiceContext, router: MessageRouter, limits: Partial<BrokerLimits> = {}) {
    this.#ctx = ctx;
    this.#logger = ctx.logger;
    this.#router = router;
    this.#limits = { maxPacketBytes: ctx.config.MQTT_MAX_PACKET_BYTES, ...DEFAULT_BROKER_LIMITS, ...limits };
    this.#registry = new ConnectionRegistry(this.#limits);
    this.#watch = new AccessWatch(ctx, this.#registry);
    // Two of the largest packets: one full batch can always be read while another is committed.
    this.#ingest = new IngestWindow(2 * this.#limits.maxPacketBytes);
    this.#pacer = new PublishPacer((topic, payload, retain, qos, done) => {
      const aedes = this.#aedes;
      if (!aedes) return done();
      aedes.publish({ cmd: "publish", topic, payload, qos, retain, dup: false }, done);
    });
    // Sparkplug (not retained) ahead of the retained UNS values: DDATA latency is what HMIs see.
    this.#hmi = new HmiNamespaces(ctx, (topic, payload, retain, qos) =>
      this.#pacer.publish(topic, payload, retain, qos, !retain),
    );
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
      connectTimeout: this.#limits.connectTimeoutMs,
      authenticate: (client, username, password, done) => {
        const authenticator = {
          ctx: this.#ctx,
          registry: this.#registry,
          maxConnectionsPerUser: this.#limits.maxConnectionsPerUser,
          onTokenExpired: (c: Client) => {
            const p = principalOf(c);
            const userId = p?.kind === "user" ? p.auth.userId : null;
            this.#logger.info("access token expired: disconnecting mqtt user", { user_id: userId });
            c.close();
          },
        };
        authenticate(authenticator, client, username, password)
          .then(() => this.#hmiNames(client))
          .then(
            () => done(null, true),
            (err: AuthenticateError) => done(err, false),
          );
      },
      authorizePublish: this.#authorizePublish,
      authorizeSubscribe: this.#authorizeSubscribe,
      authorizeForward: (client, packet) => {
        if (this.#refused.has(packet.payload as Buffer)) return null;
        if (this.#hmiPublishes.get(packet.payload as Buffer)?.kind === "ignored") return null;
        const p = principalOf(client);
        if (p?.kind === "hmi")
          return hmiMayReceive(this.#hmi.names.get(p.projectId), packet.topic) ? packet : null;
        if (!mayReceive(p, packet.topic, this.#ctx.clock.now().getTime())) return null;
        const payload = payloadForPeople(packet.topic, packet.payload as Buffer);
        return payload === packet.payload ? packet : { ...packet, payload };
      },
      published: (packet, client, done) => {
        const p = principalOf(client);
        if (p?.kind === "hmi") {
          const action = this.#hmiPublishes.get(packet.payload as Buffer);
          if (action) this.#hmi.published(p.projectId, action);
        }
        done();
      },
    });
    // An agent's publish is handed to its service after aedes' fan-out, or instead of it when no
    // subscription can match it (direct-delivery.ts).
    interceptPublishes(aedes, {
      takes: (packet) => carriedMessage(packet) !== undefined,
      heard: (packet) => this.#registry.audience(packet.topic).size > 0,
      handle: (packet, client, done) => this.#handleAgentMessage(packet, client, done),
    });
    aedes.on("unsubscribe", (filters, client) => this.#registry.unsubscribed(client, filters));
    aedes.on("clientError", (c, err) => this.#onConnectionError(c, err));
    aedes.on("connectionError", (c, err) => this.#onConnectionError(c, err));
    this.#aedes = aedes;
    this.#watch.start();

    const onDeployment = ({ projectId, message }: { projectId: string; message: Payload<"config"> }) => {
      this.publish(topics.config(projectId), message, true).catch((err: unknown) =>
        this.#logger.error("publishing a deployment failed", {
          project_id: projectId,
          error: errorText(err),
        }),
      );
    };
    const onRequest = ({ projectId, message }: { projectId: string; message: Payload<"request"> }) => {
      this.publish(topics.request(projectId), message, false).catch((err: unknown) =>
        this.#logger.error("publishing an agent request failed", {
          project_id: projectId,
          error: errorText(err),
        }),
      );
    };
    const live = new LiveValues((topic, payload) =>
      this.#pacer.publish(topic, Buffer.from(JSON.stringify(payload)), true, 0, false),
    );
    live.start();
    this.#ctx.events.on("deploymentCreated", onDeployment);
    this.#ctx.events.on("agentRequest", onRequest);
    this.#ctx.events.on("telemetry", live.observe);
    await this.#hmi.start();
    this.#unsubscribe = () => {
      this.#watch.stop();
      this.#ctx.events.off("deploymentCreated", onDeployment);
      this.#ctx.events.off("agentRequest", onRequest);
      this.#ctx.events.off("telemetry", live.observe);
      live.stop();
    };
    // Retained messages live in memory: put every project's newest configuration back.
    for (const { projectId, message } of await latestConfigMessages(this.#ctx))
      onDeployment({ projectId, message });

    // TCP_NODELAY: MQTT's small packets (PUBACK, the application ack after each commit) must leave at
    // once. With Nagle's algorithm each ack waited for the peer's delayed TCP ACK: measured 15 ms per
    // ack on loopback, a third of an agent's backlog round trip (drain 115k → 185k points/s without).
    const tcp = createServer({ noDelay: true }, (socket) => this.#accept(socket));
    this.#tcp = tcp;
    await new Promise<void>((resolve, reject) => {
      tcp.once("error", reject);
      tcp.listen(port, host, () => resolve());
    });
    this.#logger.info("mqtt listening", { host, port: this.port });
  }

  /** MQTT over WebSocket: the HTTP server hands over the upgraded stream. */
  handle(stream: Duplex, request: IncomingMessage): void {
    this.#accept(stream, request);
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

  /**
   * An ack at QoS 0 (docs/mqtt.md, agent/ack: a lost one only means the batch comes again). When
   * the agent that sent the batch is all its topic reaches, written straight to its connection;
   * else through aedes, to everyone subscribed.
   */
  #publishAck(agent: Client, topic: string, ack: unknown): Promise<void> {
    const audience = this.#registry.audience(topic);
    if (audience.size > 1 || (audience.size === 1 && !audience.has(agent.id))) {
      return this.publish(topic, ack, false, 0);
    }
    if (audience.size === 1) deliverDirect(agent, topic, JSON.stringify(ack));
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.#unsubscribe?.();
    // Before the connections close: each live Sparkplug node's NDEATH reaches the HMIs.
    await this.#hmi.stop();
    this.#registry.closeAll();
    const tcp = this.#tcp;
    this.#tcp = undefined;
    if (tcp) await new Promise<void>((resolve) => tcp.close(() => resolve()));
    const aedes = this.#aedes;
    this.#aedes = undefined;
    if (aedes) await new Promise<void>((resolve) => aedes.close(() => resolve()));
  }

  /** Every socket, TCP or WebSocket: counted until it authenticates, and size-checked packet by packet. */
  #accept(stream: Duplex, request?: IncomingMessage): void {
    const aedes = this.#aedes;
    const guarded = new PacketSizeGuard(stream, this.#limits.maxPacketBytes);
    if (!aedes || !this.#registry.admit(guarded)) {
      this.#logger.debug("mqtt connection refused: too many unauthenticated sockets", {
        pending: this.#registry.pendingCount,
      });
      guarded.destroy();
      return;
    }
    aedes.handle(guarded, request);
  }

  readonly #authorizePublish: AuthorizePublishHandler = (client, packet, done) => {
    // client === null: the server's own publish (acks, retained config, live values).
    if (client === null) return done(null);
    const p = principalOf(client);
    if (p?.kind === "hmi") {
      const payload = packet.payload as Buffer;
      const now = this.#ctx.clock.now().getTime();
      const names = this.#hmi.names.get(p.projectId);
      const action = hmiPublish(names, p, packet.topic, payload, packet.retain, now);
      if (!action) return done(new Error(`publish to ${packet.topic} refused`));
      if (action.kind === "ignored" && action.reason === "ahead-of-clock")
        this.#logger.warn("HMI STATE ignored: its timestamp is ahead of the server's clock", {
          credential_id: p.credentialId,
          topic: packet.topic,
        });
      this.#hmiPublishes.set(payload, action);
      if (action.kind === "ignored") (packet as PublishPacket).retain = false;
      return done(null);
    }
    // The $SYS/ guard aedes' default authorizer has (DESIGN.md), kept explicit.
    const name = packet.topic.startsWith("$SYS/") ? null : publishableAs(p, packet.topic);
    if (name === null || this.#registry.isSuperseded(client)) {
      return done(new Error(`publish to ${packet.topic} refused`));
    }
    // [MQTT-3.3.5-2] MQTT 3.1.1 cannot refuse one PUBLISH: the connection is closed.
    if (packet.retain && !mayRetain(name))
      return done(new Error(`retain is not accepted on ${packet.topic}`));
    const message = parseAgentMessage(name, packet.payload as Buffer);
    carryMessage(packet, message);
    // Acknowledged (the telemetry error ack tells the agent why) but never stored as retained: a
    // zero-byte retained payload would otherwise clear the topic's retained message [MQTT-3.3.1-10].
    if (!message.valid) {
      this.#refused.add(packet.payload as Buffer);
      (packet as PublishPacket).retain = false;
    }
    done(null);
  };

  /**
   * An agent's publish, parsed in authorizePublish, to its service. A batch joins the commit queue
   * as it is read and its ack follows the commit, in order; aedes reads on at once while the
   * connection is within its ingest window. Other messages are handled before aedes reads on.
   */
  #handleAgentMessage(packet: PublishPacket, client: Client, done: () => void): void {
    const p = principalOf(client);
    const message = carriedMessage(packet);
    if (p?.kind !== "agent" || !message) {
      done();
      return;
    }
    const handled = routeMessage(this.#router, p.projectId, packet.topic, message, (topic, body) =>
      this.#publishAck(client, topic, body),
    ).catch((err: unknown) => {
      this.#logger.error("mqtt message handling failed", { topic: packet.topic, error: errorText(err) });
    });
    if (message.name === "telemetry") this.#ingest.admit(client, packet.payload.length, handled, done);
    else void handled.then(() => done());
  }

  readonly #authorizeSubscribe: AuthorizeSubscribeHandler = (client, subscription, done) => {
    this.#watch
      .recheck(client)
      .then(async (live) => {
        await this.#hmiNames(client);
        return live;
      })
      .then(
        (live) => this.#decideSubscription(client, subscription, live, done),
        (err: unknown) => done(err instanceof Error ? err : new Error(String(err)), null),
      );
  };

  /**
   * An HMI's project names, read when they are not in the cache yet (a project created since the
   * start has none until its configuration changes): its own group and UNS level are granted, and
   * its STATE and Rebirth taken, from its first CONNECT.
   */
  async #hmiNames(client: Client): Promise<void> {
    const p = principalOf(client);
    if (p?.kind === "hmi" && !this.#hmi.names.get(p.projectId)) await this.#hmi.names.load(p.projectId);
  }

  #decideSubscription(
    client: Client,
    subscription: Subscription,
    live: boolean,
    done: (err: Error | null, subscription?: Subscription | null) => void,
  ): void {
    // Re-read at every SUBSCRIBE: an expired token, ended session or revoked credential closes the connection.
    const p = principalOf(client);
    const allowed =
      p?.kind === "hmi"
        ? hmiMaySubscribe(this.#hmi.names.get(p.projectId), subscription.topic)
        : maySubscribe(p, subscription.topic);
    if (!live || !allowed) {
      // [MQTT-3.9.3] a refused filter gets return code 0x80 in the SUBACK; the connection and its
      // other subscriptions stay (an error here would drop the client, and it would loop reconnecting).
      this.#logger.debug("mqtt subscription refused", { client: client.id, topic: subscription.topic });
      done(null, null);
      return;
    }
    // An HMI never receives a caudal/v1 topic (hmiMayReceive), the only ones whose audience the
    // registry is asked for: its filters, `#` included, leave the agents' direct paths as they are.
    if (p?.kind !== "hmi") this.#registry.granted(client, subscription.topic);
    done(null, subscription);
  }

  #onConnectionError(client: Client, err: Error): void {
    if (!(err instanceof PacketTooLarge)) {
      this.#logger.debug("mqtt client error", { client: client.id, error: err.message });
      return;
    }
    const p = principalOf(client);
    this.#logger.warn("mqtt packet too large: connection closed", {
      announced_bytes: err.announcedBytes,
      limit_bytes: this.#limits.maxPacketBytes,
      ...(p?.kind === "agent" ? { project_id: p.projectId } : {}),
      ...(p?.kind === "user" ? { user_id: p.auth.userId } : {}),
    });
  }
}
