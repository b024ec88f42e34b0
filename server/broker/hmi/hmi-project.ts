import { slugify } from "../../../shared/field/slug.ts";
import { unsTopic } from "../../../shared/mqtt/hmi-topics.ts";
import type { BatchSeries } from "../../../shared/telemetry/batch.ts";
import type { AssetModel, FieldModel } from "./field-model.ts";
import type { ProjectNames } from "./project-names.ts";
import { type SparkplugType, sparkplugTypeOf } from "./sparkplug/datatypes.ts";
import { HistoryQueue } from "./sparkplug/history-queue.ts";
import { FIRST_DEVICE_ALIAS } from "./sparkplug/node-metrics.ts";
import type { NodeInfo } from "./sparkplug/payloads.ts";

/** One variable of an asset, with its newest value and what is still to publish about it. */
export type Metric = {
  readonly alias: number;
  readonly name: string;
  /** Its level in the unified namespace: the alias's slug. */
  readonly unsLevel: string;
  type: SparkplugType;
  unit: string | null;
  readonly device: Device;
  /** The newest value and its time (-Infinity: none yet). */
  ts: number;
  value: number;
  /** The newest value has not gone out in Sparkplug (a DDATA or a birth) yet. */
  spDirty: boolean;
  /** The unified namespace does not hold the newest value (or quality) yet. */
  unsDirty: boolean;
  /** A retained UNS message holds a value for it (so removing it must clear the topic). */
  unsPublished: boolean;
};

/** One asset: a Sparkplug device and a UNS level. */
export type Device = {
  readonly assetId: string;
  /** The asset name's slug: Sparkplug device_id and UNS level. */
  deviceId: string;
  metrics: Map<string, Metric>;
  /** In comm_loss (its values are bad). */
  commLoss: boolean;
  /** A DBIRTH is due: new, redefined, renamed, or data again after its DDEATH. */
  birthDue: boolean;
  /** A DDEATH is due (comm_loss). */
  deathDue: boolean;
  /** Its DBIRTH went out in this node session and no DDEATH since: DDATA may follow. */
  alive: boolean;
  /** Metrics whose newest value is still to go out in a DDATA. */
  readonly spDirty: Metric[];
};

/** Values kept for HMIs while the agent is online (an agent's backlog fits: see the bench). */
export const HISTORY_CAPACITY = 1_000_000;

/**
 * The state of one project as the HMI namespaces see it: its devices and metrics with their
 * newest values, what is due to publish, and the historical values waiting. The Sparkplug edge
 * node (sparkplug/edge-node.ts) and the unified namespace (uns-namespace.ts) publish from it.
 *
 * observe() runs on the telemetry hot path, inside ingest's emit: two map lookups per series and a
 * few assignments per point, nothing allocated but the queued history value.
 */
export class HmiProject {
  names: ProjectNames;
  readonly devices = new Map<string, Device>();
  readonly byAlias = new Map<number, Metric>();
  nodeInfo: NodeInfo = { agentVersion: null, configVersion: null, bufferPoints: null };
  nodeInfoDirty = false;
  readonly unsDirty: Metric[] = [];
  /** Retained UNS topics to clear (variables or assets removed or renamed). */
  readonly unsCleared: string[] = [];
  /** Sparkplug device ids removed while alive: their DDEATH is due. */
  readonly goneDevices: string[] = [];
  readonly history = new HistoryQueue(HISTORY_CAPACITY);
  /** Older values are queued for HMIs only while the node has a session to deliver them in. */
  keepsHistory = false;
  #nextAlias = FIRST_DEVICE_ALIAS;

  constructor(names: ProjectNames, model: FieldModel) {
    this.names = names;
    this.apply(names, model);
  }

  /** One committed series of a batch; false when it is not a variable of the field model. */
  observe(series: BatchSeries): boolean {
    const device = this.devices.get(series.assetId);
    if (device === undefined) return false;
    const m = device.metrics.get(series.variable);
    if (m === undefined || series.points.length === 0) return false;
    for (const [ts, value] of series.points) {
      if (ts < m.ts) {
        // Older than the newest value: it never replaces it, it is history.
        if (this.keepsHistory) this.history.push(m.alias, ts, value);
        continue;
      }
      if (!m.spDirty) {
        m.spDirty = true;
        device.spDirty.push(m);
      } else if (this.keepsHistory && m.ts < ts) {
        // Superseded before it went out: it still reaches HMIs, as history.
        this.history.push(m.alias, m.ts, m.value);
      }
      if (!m.unsDirty) {
        m.unsDirty = true;
        this.unsDirty.push(m);
      }
      m.ts = ts;
      m.value = value;
    }
    // Data again after comm_loss: the device is born again, its values good.
    if (device.commLoss) this.setCommLoss(device, false);
    return true;
  }

  setCommLoss(device: Device, lost: boolean): void {
    if (device.commLoss === lost) return;
    device.commLoss = lost;
    if (lost) {
      if (device.alive) device.deathDue = true;
    } else {
      device.birthDue = true;
    }
    // Every value's quality changes.
    for (const m of device.metrics.values()) this.#markUns(m);
  }

  unsTopicOf(m: Metric): string {
    return unsTopic(this.names.group, m.device.deviceId, m.unsLevel);
  }

  /**
   * Brings the project up to date with a fresh read of the database: names, assets, variables,
   * their definitions. What changed becomes due: DBIRTHs, DDEATHs, UNS clears and publishes.
   * (A new group or edge node id is the edge node's to handle: SparkplugEdgeNode.namesChanged.)
   */
  apply(names: ProjectNames, model: FieldModel): void {
    if (names.group !== this.names.group) {
      for (const d of this.devices.values()) for (const m of d.metrics.values()) this.#unpublishUns(m, true);
    }
    this.names = names;
    this.#applyNodeInfo(model.nodeInfo);
    const seen = new Set<string>();
    for (const asset of model.assets) {
      seen.add(asset.assetId);
      this.#applyAsset(asset);
    }
    for (const [assetId, device] of this.devices) {
      if (seen.has(assetId)) continue;
      if (device.alive) this.goneDevices.push(device.deviceId);
      for (const m of device.metrics.values()) this.#removeMetric(m);
      this.devices.delete(assetId);
    }
  }

  /** Everything published is withdrawn: the project is gone. */
  clearAll(): void {
    for (const d of this.devices.values()) for (const m of d.metrics.values()) this.#removeMetric(m);
    this.devices.clear();
    this.history.clear();
  }

  #applyNodeInfo(info: NodeInfo): void {
    const n = this.nodeInfo;
    if (
      n.agentVersion === info.agentVersion &&
      n.configVersion === info.configVersion &&
      n.bufferPoints === info.bufferPoints
    ) {
      return;
    }
    this.nodeInfo = info;
    this.nodeInfoDirty = true;
  }

  /** The agent's heartbeat figures (Sparkplug node metrics). */
  setNodeInfo(info: NodeInfo): void {
    this.#applyNodeInfo(info);
  }

  #applyAsset(asset: AssetModel): void {
    let device = this.devices.get(asset.assetId);
    if (!device) {
      device = {
        assetId: asset.assetId,
        deviceId: asset.slug,
        metrics: new Map(),
        commLoss: asset.commLoss,
        birthDue: true,
        deathDue: false,
        alive: false,
        spDirty: [],
      };
      this.devices.set(asset.assetId, device);
    } else if (device.deviceId !== asset.slug) {
      // Renamed: the old device dies, the new one is born; UNS values move.
      if (device.alive) this.goneDevices.push(device.deviceId);
      for (const m of device.metrics.values()) this.#unpublishUns(m, true);
      device.deviceId = asset.slug;
      device.alive = false;
      device.birthDue = true;
    }
    this.setCommLoss(device, asset.commLoss);
    const metrics = new Map<string, Metric>();
    let redefined = false;
    for (const v of asset.variables) {
      const type = sparkplugTypeOf(v.dataType, v.scaleFactor);
      let m = device.metrics.get(v.name);
      if (m) {
        if (m.type !== type || m.unit !== v.unit) {
          m.type = type;
          m.unit = v.unit;
          redefined = true;
          this.#markUns(m);
        }
      } else {
        m = {
          alias: this.#nextAlias++,
          name: v.name,
          unsLevel: slugify(v.name) || "value",
          type,
          unit: v.unit,
          device,
          ts: Number.NEGATIVE_INFINITY,
          value: Number.NaN,
          spDirty: false,
          unsDirty: false,
          unsPublished: false,
        };
        this.byAlias.set(m.alias, m);
        redefined = true;
      }
      if (v.latest && v.latest.ts > m.ts) {
        m.ts = v.latest.ts;
        m.value = v.latest.value;
        this.#markUns(m);
      }
      metrics.set(v.name, m);
    }
    for (const [name, m] of device.metrics) {
      if (metrics.has(name)) continue;
      this.#removeMetric(m);
      redefined = true;
    }
    device.metrics = metrics;
    device.spDirty.splice(
      0,
      device.spDirty.length,
      ...device.spDirty.filter((m) => metrics.get(m.name) === m),
    );
    if (redefined) device.birthDue = true;
  }

  #markUns(m: Metric): void {
    if (m.unsDirty || m.ts === Number.NEGATIVE_INFINITY) return;
    m.unsDirty = true;
    this.unsDirty.push(m);
  }

  /** Clears the metric's retained UNS value (under its current topic); `republish` puts it back after. */
  #unpublishUns(m: Metric, republish: boolean): void {
    if (m.unsPublished) this.unsCleared.push(this.unsTopicOf(m));
    m.unsPublished = false;
    if (republish) this.#markUns(m);
  }

  #removeMetric(m: Metric): void {
    this.#unpublishUns(m, false);
    m.unsDirty = false;
    this.byAlias.delete(m.alias);
  }
}
