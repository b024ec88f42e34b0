import { randomUUID } from "node:crypto";
import mqtt, { type MqttClient } from "mqtt";
import { type Payload, payloads, topics } from "../../../shared/mqtt/topics.ts";
import type { Credentials } from "../../broker/mosquitto-clients.ts";

type Series = Payload<"telemetry">["series"][number];

/**
 * An MQTT client speaking the agent's side of the contract (shared/mqtt/topics.ts) as
 * caudal-agent's sync client does: `online` retained on connect with `offline` as its last
 * will, telemetry batches (QoS 1) answered by the server's ack, heartbeats.
 */
export class AgentClient {
  readonly agentId = randomUUID();
  readonly #projectId: string;
  readonly #client: MqttClient;
  #seq = 0;
  readonly #acks = new Map<number, (ack: Payload<"ack">) => void>();

  private constructor(projectId: string, client: MqttClient) {
    this.#projectId = projectId;
    this.#client = client;
    client.on("message", (_topic, raw) => {
      const ack = payloads.ack.safeParse(JSON.parse(raw.toString("utf8")));
      if (ack.success) this.#acks.get(ack.data.seq)?.(ack.data);
    });
  }

  static async connect(port: number, projectId: string, c: Credentials): Promise<AgentClient> {
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
      username: c.username,
      password: c.password,
      reconnectPeriod: 0,
      will: {
        topic: topics.status(projectId),
        payload: Buffer.from(JSON.stringify({ status: "offline" })),
        qos: 1,
        retain: true,
      },
    });
    await client.subscribeAsync(topics.ack(projectId), { qos: 1 });
    const agent = new AgentClient(projectId, client);
    await client.publishAsync(
      topics.status(projectId),
      JSON.stringify({ status: "online", agent_id: agent.agentId, at: new Date().toISOString() }),
      { qos: 1, retain: true },
    );
    return agent;
  }

  /** One telemetry batch; resolves with the server's ack (after the commit). */
  send(series: Series[], lane: "live" | "backlog" = "live"): Promise<Payload<"ack">> {
    this.#seq += 1;
    const seq = this.#seq;
    const acked = new Promise<Payload<"ack">>((resolve) => this.#acks.set(seq, resolve));
    const batch: Payload<"telemetry"> = { agent_id: this.agentId, seq, lane, series, alarms: [] };
    void this.#client.publishAsync(topics.telemetry(this.#projectId), JSON.stringify(batch), { qos: 1 });
    return acked;
  }

  heartbeat(fields: {
    agentVersion: string;
    configVersion: number | null;
    bufferPoints: number;
  }): Promise<unknown> {
    const body: Payload<"heartbeat"> = {
      agent_id: this.agentId,
      agent_version: fields.agentVersion,
      uptime_seconds: 1,
      devices: [],
      buffer: { batches: 0, points: fields.bufferPoints, oldest_ts: null, dropped_batches: 0 },
      config: { version: fields.configVersion, hash: null },
    };
    return this.#client.publishAsync(topics.heartbeat(this.#projectId), JSON.stringify(body), { qos: 1 });
  }

  /** A clean stop: `offline`, retained, then DISCONNECT. */
  async stop(): Promise<void> {
    await this.#client.publishAsync(topics.status(this.#projectId), JSON.stringify({ status: "offline" }), {
      qos: 1,
      retain: true,
    });
    await this.#client.endAsync();
  }

  /** The link drops without DISCONNECT: the broker publishes the last will. */
  async vanish(): Promise<void> {
    this.#client.stream.destroy();
    await new Promise<void>((resolve) => {
      if (!this.#client.connected) resolve();
      else this.#client.once("close", () => resolve());
    });
    await this.#client.endAsync(true);
  }
}
