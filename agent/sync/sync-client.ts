import mqtt, { type MqttClient } from "mqtt";
import { type Payload, payloads, topics } from "../../shared/mqtt/topics.ts";
import type { Outbox } from "../store/outbox.ts";
import { brokerOptions } from "./broker-options.ts";
import { type LinkSnapshot, LinkState, RETRY, refusesCredentials, type SyncRetry } from "./link-state.ts";
import { telemetryFrame, telemetryMessage } from "./telemetry-message.ts";

export type SyncOptions = {
  mqttUrl: string;
  projectId: string;
  agentToken: string;
  agentId: string;
  outbox: Outbox;
  now: () => number;
  onConfig: (config: Payload<"config">) => void;
  /** A request from the server (test-read); the answer goes back through `publish("response", …)`. */
  onRequest: (request: Payload<"request">) => void;
  onLog: (level: "debug" | "info" | "warn" | "error", message: string) => void;
  retry?: Partial<SyncRetry>;
};

/** Live batches in flight at once; backlog is held to one so live data waits behind at most one batch. */
const LIVE_WINDOW = 8;
const BACKLOG_WINDOW = 1;
/** How long stop() waits for the broker to confirm the clean "offline" status. */
const STOP_PUBLISH_TIMEOUT_MS = 2_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** A batch not acknowledged in this time is sent again (the server deduplicates on seq). */
const ACK_TIMEOUT_MS = 30_000;

type InFlight = { lane: "live" | "backlog"; sentAt: number };

/**
 * Store-and-forward over MQTT. Sends with QoS 1 and deletes a batch only on the server's
 * application acknowledgement, published after the server committed it. Anything unacknowledged
 * when the link drops is sent again from the store on reconnect.
 */
export class SyncClient {
  readonly #o: SyncOptions;
  #client: MqttClient | undefined;
  #connected = false;
  readonly #inflight = new Map<number, InFlight>();
  /** Batches appended while connected, waiting for a live slot. */
  readonly #liveQueue: number[] = [];
  #timer: NodeJS.Timeout | undefined;
  #lastSync: number | null = null;
  #acked = 0;
  /** Acknowledged batches not deleted yet: deleted together just after the next send (#onMessage). */
  readonly #toDelete = new Set<number>();
  #deleting: NodeJS.Immediate | undefined;
  /** An ack on this connection said the server takes binary batches (telemetry-frame.ts). */
  #binary = false;
  #framesSent = 0;
  readonly #retry: SyncRetry;
  /** The link's state, for /status, /health and the local page (this process). */
  readonly #link: LinkState;

  constructor(options: SyncOptions) {
    this.#o = options;
    this.#retry = { ...RETRY, ...options.retry };
    this.#link = new LinkState(options.now());
  }

  /** How the link stands, and in plain words why it is down. */
  get link(): LinkSnapshot {
    return this.#link.snapshot();
  }

  get connected(): boolean {
    return this.#connected;
  }

  get lastSyncAt(): number | null {
    return this.#lastSync;
  }

  get ackedBatches(): number {
    return this.#acked;
  }

  /** Batches sent as binary frames rather than JSON. */
  get framesSent(): number {
    return this.#framesSent;
  }

  start(): void {
    const { projectId, agentId } = this.#o;
    const client = mqtt.connect({
      ...brokerOptions(this.#o.mqttUrl),
      clientId: `caudal-agent-${projectId}`,
      username: `agent:${projectId}`,
      password: this.#o.agentToken,
      clean: true,
      reconnectPeriod: this.#retry.reconnectMs,
      // mqtt.js otherwise stops reconnecting after a refused CONNACK: the agent would never learn
      // that its credentials are accepted again. #onError slows the pace instead.
      reconnectOnConnackError: true,
      connectTimeout: 10_000,
      keepalive: 30,
      // [MQTT-3.1.2-8] the broker publishes the will if the agent vanishes without DISCONNECT.
      will: {
        topic: topics.status(projectId),
        payload: Buffer.from(JSON.stringify({ status: "offline", agent_id: agentId })),
        qos: 1,
        retain: true,
      },
      queueQoSZero: false,
      // mqtt-packet otherwise keeps a cache of 65,536 Buffers (~7 MB of heap) for packet ids.
      writeCache: false,
    });
    this.#client = client;
    client.on("connect", () => this.#onConnect());
    client.on("close", () => this.#onClose());
    client.on("error", (err) => this.#onError(client, err));
    client.on("message", (topic, payload) => this.#onMessage(topic, payload));
    this.#timer = setInterval(() => this.#resendStale(), 5_000);
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    if (client) await this.#disconnect(client);
    // Before the store closes: an acknowledged batch left behind would only be sent again.
    this.#deleteAcked();
  }

  async #disconnect(client: MqttClient): Promise<void> {
    if (this.#connected) {
      const offline = client
        .publishAsync(
          topics.status(this.#o.projectId),
          JSON.stringify({
            status: "offline",
            agent_id: this.#o.agentId,
            at: new Date(this.#o.now()).toISOString(),
          }),
          { qos: 1, retain: true },
        )
        .then(
          () => true,
          () => false,
        );
      // A QoS 1 publish never settles if the link drops before its PUBACK: bound the wait, then
      // close at once (the broker then publishes the last will, which says the same).
      const delivered = await Promise.race([offline, sleep(STOP_PUBLISH_TIMEOUT_MS).then(() => false)]);
      await client.endAsync(!delivered).catch(() => {});
      return;
    }
    await client.endAsync(true).catch(() => {});
  }

  /** A batch was committed to the store. While connected it travels in the live lane. */
  notifyAppended(seq: number): void {
    if (!this.#connected) return;
    if (this.#inflight.has(seq) || this.#liveQueue.includes(seq)) return;
    this.#liveQueue.push(seq);
    this.#pump();
  }

  publish(name: "heartbeat" | "logs" | "configStatus" | "response", body: unknown): void {
    if (!this.#connected || !this.#client) return;
    this.#client.publish(topics[name](this.#o.projectId), JSON.stringify(body), { qos: 1 });
  }

  /**
   * A refused CONNACK sets the pace of the next attempt: mqtt.js schedules it from
   * `options.reconnectPeriod` right after this listener returns (handlers/connack.js).
   */
  #onError(client: MqttClient, err: Error & { code?: unknown }): void {
    const now = this.#o.now();
    if (!refusesCredentials(err.code)) {
      if (this.#link.networkError(err.message)) this.#o.onLog("warn", `mqtt: ${err.message}`);
      return;
    }
    const { delay, log } = this.#link.refusedAttempt(err.code, err.message, now, this.#retry);
    client.options.reconnectPeriod = delay;
    if (log) this.#o.onLog("error", log);
  }

  #onConnect(): void {
    const client = this.#client;
    if (!client) return;
    this.#connected = true;
    client.options.reconnectPeriod = this.#retry.reconnectMs;
    const ended = this.#link.connected(this.#o.now());
    this.#o.onLog(
      "info",
      ended
        ? `connected to the broker: the server accepts this agent's credentials again after ${ended.attempts} refused attempts; sending the buffered readings`
        : "connected to the broker",
    );
    client.publish(
      topics.status(this.#o.projectId),
      JSON.stringify({
        status: "online",
        agent_id: this.#o.agentId,
        at: new Date(this.#o.now()).toISOString(),
      }),
      { qos: 1, retain: true },
    );
    const subscriptions = [
      topics.ack(this.#o.projectId),
      topics.config(this.#o.projectId),
      topics.request(this.#o.projectId),
    ];
    client.subscribe(subscriptions, { qos: 1 }, (err) => {
      if (err) this.#o.onLog("error", `subscribe failed: ${err.message}`);
      else this.#pump();
    });
  }

  #onClose(): void {
    this.#link.closed(this.#o.now());
    // stop() clears #client before it ends the connection: a requested stop is no lost link.
    if (this.#connected && this.#client)
      this.#o.onLog("warn", "disconnected from the broker; buffering locally");
    this.#connected = false;
    // The next connection may reach another server (an older one takes JSON only): it says again.
    this.#binary = false;
    // Nothing in flight survives the connection: the store still holds every unacked batch.
    this.#inflight.clear();
    this.#liveQueue.length = 0;
  }

  #onMessage(topic: string, raw: Buffer): void {
    let json: unknown;
    try {
      json = JSON.parse(raw.toString("utf8"));
    } catch {
      this.#o.onLog("warn", `ignored a message that is not JSON on ${topic}`);
      return;
    }
    if (topic === topics.ack(this.#o.projectId)) {
      const ack = payloads.ack.safeParse(json);
      if (!ack.success || ack.data.agent_id !== this.#o.agentId) return;
      this.#inflight.delete(ack.data.seq);
      if (ack.data.binary) this.#binary = true;
      if (ack.data.error) {
        this.#o.onLog("error", `server refused batch ${ack.data.seq}: ${ack.data.error}`);
      }
      this.#lastSync = this.#o.now();
      // The next batch leaves first; the delete (a sync to disk) follows and overlaps its round trip,
      // in one transaction with every batch acknowledged meanwhile. Until then #send skips it; a crash
      // before the delete only means the batch is sent again and acknowledged as a duplicate.
      this.#toDelete.add(ack.data.seq);
      this.#pump();
      this.#deleting ??= setImmediate(() => this.#deleteAcked());
      return;
    }
    if (topic === topics.request(this.#o.projectId)) {
      const request = payloads.request.safeParse(json);
      if (request.success) this.#o.onRequest(request.data);
      else
        this.#o.onLog(
          "warn",
          `ignored a request this agent cannot read: ${request.error.issues[0]?.message ?? ""}`,
        );
      return;
    }
    if (topic === topics.config(this.#o.projectId)) {
      const config = payloads.config.safeParse(json);
      if (!config.success) {
        const issue = config.error.issues[0];
        const reason =
          `configuration does not match this agent's schema: ${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`.trim();
        this.#o.onLog("error", reason);
        // Report it, so the deployment does not stay pending (e.g. a server newer than the agent).
        const head = json as { deployment_id?: unknown; version?: unknown; hash?: unknown };
        if (
          typeof head.deployment_id === "string" &&
          typeof head.version === "number" &&
          typeof head.hash === "string"
        ) {
          this.publish("configStatus", {
            agent_id: this.#o.agentId,
            deployment_id: head.deployment_id,
            version: head.version,
            hash: head.hash,
            status: "failed",
            error: reason,
          });
        }
        return;
      }
      this.#o.onConfig(config.data);
    }
  }

  #pump(): void {
    if (!this.#connected) return;
    let live = [...this.#inflight.values()].filter((f) => f.lane === "live").length;
    while (live < LIVE_WINDOW && this.#liveQueue.length > 0) {
      const seq = this.#liveQueue.shift();
      if (seq === undefined || !this.#send(seq, "live")) continue;
      live += 1;
    }
    const backlog = [...this.#inflight.values()].filter((f) => f.lane === "backlog").length;
    if (backlog >= BACKLOG_WINDOW) return;
    const queued = new Set(this.#liveQueue);
    let after = 0;
    for (;;) {
      const candidates = this.#o.outbox.seqsAfter(after, 16);
      if (candidates.length === 0) return;
      for (const seq of candidates) {
        if (this.#inflight.has(seq) || queued.has(seq)) continue;
        if (this.#send(seq, "backlog")) return;
      }
      after = candidates.at(-1) ?? after;
    }
  }

  #send(seq: number, lane: "live" | "backlog"): boolean {
    const client = this.#client;
    if (!client || this.#toDelete.has(seq)) return false;
    const body = this.#o.outbox.bodyText(seq);
    if (body === undefined) return false;
    this.#o.outbox.seal(seq);
    this.#inflight.set(seq, { lane, sentAt: this.#o.now() });
    const frame = this.#binary ? telemetryFrame(this.#o.agentId, seq, lane, body) : undefined;
    if (frame) this.#framesSent++;
    client.publish(
      topics.telemetry(this.#o.projectId),
      frame ?? telemetryMessage(this.#o.agentId, seq, lane, body),
      { qos: 1 },
    );
    return true;
  }

  #deleteAcked(): void {
    if (this.#deleting) clearImmediate(this.#deleting);
    this.#deleting = undefined;
    if (this.#toDelete.size === 0) return;
    const seqs = [...this.#toDelete];
    this.#toDelete.clear();
    try {
      this.#acked += this.#o.outbox.ackMany(seqs);
    } catch (err) {
      // Still stored: they are sent again and acknowledged as duplicates, never lost.
      this.#o.onLog(
        "error",
        `deleting acknowledged batches failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  #resendStale(): void {
    const now = this.#o.now();
    for (const [seq, f] of this.#inflight) {
      if (now - f.sentAt > ACK_TIMEOUT_MS) {
        this.#inflight.delete(seq);
        this.#o.onLog(
          "warn",
          `no acknowledgement for batch ${seq} in ${ACK_TIMEOUT_MS / 1000} s; sending again`,
        );
        if (f.lane === "live") this.#liveQueue.unshift(seq);
      }
    }
    this.#pump();
  }
}
