import type { UPayload } from "sparkplug-payload/lib/sparkplugbpayload.js";
import { type StatePayload, sparkplugTopics } from "../../../../shared/mqtt/hmi-topics.ts";
import type { Device, HmiProject } from "../hmi-project.ts";
import type { ProjectNames } from "../project-names.ts";
import { type DataMetric, dbirth, ddata, ddeath, encode, nbirth, ndata, ndeath } from "./payloads.ts";

/** `death`: an NDEATH, which goes at QoS 1 as an edge node's will would [tck-id-payloads-ndeath-will-message-qos]. */
export type SparkplugPublish = (topic: string, payload: Uint8Array, death: boolean) => void;

export type EdgeNodeOptions = {
  /** Historical values sent per flush at most (the backlog never floods HMIs). */
  historyPerFlush: number;
  /** Metrics in one historical DDATA at most. */
  historyPerMessage: number;
  /** An NCMD Rebirth within this time of the last births waits until it has passed. */
  rebirthMinIntervalMs: number;
};

export const DEFAULT_EDGE_NODE_OPTIONS: EdgeNodeOptions = {
  historyPerFlush: 5_000,
  historyPerMessage: 500,
  rebirthMinIntervalMs: 1_000,
};

/**
 * The Sparkplug B 3.0 edge node the server publishes for one project's agent (issue 11):
 * NBIRTH when the agent comes online (a new bdSeq), a DBIRTH per asset, DDATA by exception with
 * seq 0–255 across every message of the node [tck-id-payloads-sequence-num-incrementing], DDEATH
 * on comm_loss or deletion, NDEATH with the NBIRTH's bdSeq when the agent goes offline; a Rebirth
 * NCMD births again with the same bdSeq [tck-id-operational-behavior-data-commands-rebirth-action-3].
 * With a primary host, nothing is published until its STATE says online
 * [tck-id-message-flow-edge-node-birth-publish-phid-wait].
 *
 * Messages leave from flush() (every ~100 ms), in this order: deaths, births, current values,
 * node metrics, then at most `historyPerFlush` historical values.
 */
export class SparkplugEdgeNode {
  readonly #project: HmiProject;
  readonly #publish: SparkplugPublish;
  readonly #options: EdgeNodeOptions;
  #agentOnline = false;
  /**
   * The primary host's last STATE (timestamp -1: none yet). In this process only, never the
   * database, like the retained STATE in aedes' memory: after a restart the host, reconnecting,
   * publishes its STATE again. Only STATEs the broker honoured come here (hmi-access.ts: the
   * login's own host id, stamped at most MAX_STATE_AHEAD_MS ahead of the server's clock).
   */
  #host: StatePayload = { online: false, timestamp: -1 };
  /** The names the current NBIRTH went out under; null while not born. */
  #born: { group: string; node: string } | null = null;
  #bdSeq = 0;
  #seq = 0;
  #rebirthDue = false;
  #bornAt = Number.NEGATIVE_INFINITY;

  constructor(
    project: HmiProject,
    publish: SparkplugPublish,
    options: EdgeNodeOptions = DEFAULT_EDGE_NODE_OPTIONS,
  ) {
    this.#project = project;
    this.#publish = publish;
    this.#options = options;
  }

  /** The agent is online and, when the project names a primary host, that host is online. */
  get active(): boolean {
    return this.#agentOnline && (this.#project.names.primaryHostId === null || this.#host.online);
  }

  get born(): boolean {
    return this.#born !== null;
  }

  get bdSeq(): number {
    return this.#bdSeq;
  }

  /** Whether the project's agent is online (a new session takes a new bdSeq). */
  get agentIsOnline(): boolean {
    return this.#agentOnline;
  }

  /**
   * The agent came online: births at the next flush, under `bdSeq` (the caller stores the next one
   * first, so a restart continues the sequence). Ignored while it is online already.
   */
  agentOnline(bdSeq: number): void {
    if (this.#agentOnline) return;
    this.#agentOnline = true;
    this.#bdSeq = bdSeq;
    this.#project.keepsHistory = true;
  }

  /** The agent went offline: NDEATH with this cycle's bdSeq, if the NBIRTH went out. */
  agentOffline(now: number): void {
    if (!this.#agentOnline) return;
    this.#die(now);
    this.#agentOnline = false;
    this.#project.keepsHistory = false;
    this.#project.history.clear();
  }

  /**
   * spBv1.0/STATE/{host}: a timestamp older than the last one seen is ignored
   * [tck-id-message-flow-edge-node-birth-publish-phid-wait-timestamp],
   * [tck-id-operational-behavior-edge-node-termination-host-offline-timestamp].
   */
  hostState(hostId: string, state: StatePayload): void {
    if (hostId !== this.#project.names.primaryHostId || state.timestamp < this.#host.timestamp) return;
    this.#host = state;
    // While the host is away nothing is published, not even a death: births follow its return.
    if (!this.active) this.#forget();
  }

  /**
   * NCMD Node Control/Rebirth: data stops at once, then the NBIRTH and every DBIRTH again, same
   * bdSeq, seq from 0 [tck-id-operational-behavior-data-commands-rebirth-action-1], [...-action-2].
   */
  rebirth(): void {
    if (this.#born) this.#rebirthDue = true;
  }

  /**
   * The project's names changed: a new group or edge node id ends the session under the old
   * names (NDEATH) and births under the new; a new primary host waits for that host's STATE.
   */
  namesChanged(now: number, previous: ProjectNames): void {
    const names = this.#project.names;
    if (previous.group !== names.group || previous.edgeNodeId !== names.edgeNodeId) this.#die(now);
    if (previous.primaryHostId !== names.primaryHostId) {
      this.#host = { online: false, timestamp: -1 };
      if (!this.active) this.#forget();
    }
  }

  /** The server stops, or the project is deleted. */
  stop(now: number): void {
    this.#die(now);
    this.#agentOnline = false;
  }

  /**
   * Publishes what is due. `history`: whether historical values may go too; false while the HMIs
   * have not taken the messages already sent (their backpressure), so a backlog is paced by the
   * slowest HMI and current values never queue behind it.
   */
  flush(now: number, history = true): void {
    if (!this.active) return;
    if (this.#rebirthDue) {
      // No data until the births (held back by rebirthMinIntervalMs): they carry the current values.
      if (now - this.#bornAt < this.#options.rebirthMinIntervalMs) return;
      this.#births(now);
    } else if (!this.#born) {
      this.#births(now);
    } else {
      this.#changes(now);
    }
    if (history) this.#history(now);
  }

  #births(now: number): void {
    const p = this.#project;
    const names = { group: p.names.group, node: p.names.edgeNodeId };
    this.#rebirthDue = false;
    this.#bornAt = now;
    p.goneDevices.length = 0;
    p.nodeInfoDirty = false;
    this.#seq = 0;
    this.#send(sparkplugTopics.node(names.group, "NBIRTH", names.node), nbirth(now, this.#bdSeq, p.nodeInfo));
    this.#born = names;
    for (const device of p.devices.values()) this.#deviceBirth(now, device);
  }

  #changes(now: number): void {
    const p = this.#project;
    for (const deviceId of p.goneDevices) this.#sendDevice("DDEATH", deviceId, ddeath(now, this.#next()));
    p.goneDevices.length = 0;
    for (const device of p.devices.values()) {
      if (device.deathDue) {
        device.deathDue = false;
        if (device.alive) this.#sendDevice("DDEATH", device.deviceId, ddeath(now, this.#next()));
        device.alive = false;
      }
      if (device.birthDue) this.#deviceBirth(now, device);
      if (device.spDirty.length > 0 && device.alive) {
        const values: DataMetric[] = device.spDirty.map((m) => {
          m.spDirty = false;
          return { alias: m.alias, type: m.type, value: m.value, ts: m.ts, historical: false };
        });
        device.spDirty.length = 0;
        this.#sendDevice("DDATA", device.deviceId, ddata(now, this.#next(), values));
      }
    }
    if (p.nodeInfoDirty) {
      p.nodeInfoDirty = false;
      const born = this.#born;
      if (born)
        this.#send(
          sparkplugTopics.node(born.group, "NDATA", born.node),
          ndata(now, this.#next(), p.nodeInfo),
        );
    }
  }

  /** DBIRTH with every metric's current value; a device in comm_loss is born bad and dies at once. */
  #deviceBirth(now: number, device: Device): void {
    const metrics = [...device.metrics.values()].map((m) => {
      m.spDirty = false;
      const value = m.ts === Number.NEGATIVE_INFINITY ? null : m.value;
      return {
        name: m.name,
        alias: m.alias,
        type: m.type,
        unit: m.unit,
        value,
        ts: m.ts,
        good: !device.commLoss,
      };
    });
    device.spDirty.length = 0;
    device.birthDue = false;
    device.deathDue = false;
    this.#sendDevice("DBIRTH", device.deviceId, dbirth(now, this.#next(), metrics));
    device.alive = !device.commLoss;
    if (device.commLoss) this.#sendDevice("DDEATH", device.deviceId, ddeath(now, this.#next()));
  }

  /** Up to historyPerFlush queued older values, as DDATA with is_historical, device by device. */
  #history(now: number): void {
    const p = this.#project;
    if (!this.#born || p.history.size === 0) return;
    const max = this.#options.historyPerMessage;
    let device: Device | undefined;
    let values: DataMetric[] = [];
    const send = () => {
      if (device && values.length > 0)
        this.#sendDevice("DDATA", device.deviceId, ddata(now, this.#next(), values));
      values = [];
    };
    p.history.drain(this.#options.historyPerFlush, (alias, ts, value) => {
      const m = p.byAlias.get(alias);
      // Removed since, or its device is not alive: there is no session for it to go to.
      if (!m?.device.alive) return;
      if (m.device !== device || values.length >= max) {
        send();
        device = m.device;
      }
      values.push({ alias, type: m.type, value, ts, historical: true });
    });
    send();
  }

  #die(now: number): void {
    const born = this.#born;
    if (!born) return;
    this.#send(sparkplugTopics.node(born.group, "NDEATH", born.node), ndeath(now, this.#bdSeq), true);
    this.#forget();
  }

  /** Not born any more (the next active flush births again). */
  #forget(): void {
    this.#born = null;
    this.#rebirthDue = false;
    for (const device of this.#project.devices.values()) {
      device.alive = false;
      device.birthDue = true;
    }
  }

  /** seq of the next message: 0–255, wrapping, across every message of the node but NDEATH. */
  #next(): number {
    this.#seq = (this.#seq + 1) % 256;
    return this.#seq;
  }

  #sendDevice(type: "DBIRTH" | "DDATA" | "DDEATH", deviceId: string, payload: UPayload): void {
    const born = this.#born;
    if (born) this.#send(sparkplugTopics.device(born.group, type, born.node, deviceId), payload);
  }

  #send(topic: string, payload: UPayload, death = false): void {
    this.#publish(topic, encode(payload), death);
  }
}
