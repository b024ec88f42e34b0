import type { Payload } from "../../../shared/mqtt/topics.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { AlarmNotice, TelemetryEvent } from "../../services/events.ts";
import { loadFieldModel } from "./field-model.ts";
import type { HmiPublish } from "./hmi-access.ts";
import { HmiProject } from "./hmi-project.ts";
import { ProjectNamesCache } from "./project-names.ts";
import { DEFAULT_EDGE_NODE_OPTIONS, type EdgeNodeOptions, SparkplugEdgeNode } from "./sparkplug/edge-node.ts";
import { flushUns } from "./uns-namespace.ts";

/** The broker's publish of a ready payload. */
export type RawPublish = (topic: string, payload: Buffer, retain: boolean, qos: 0 | 1) => Promise<void>;

export type HmiNamespacesOptions = EdgeNodeOptions & {
  /**
   * Sparkplug messages handed to the broker and not yet delivered to every subscriber: past this,
   * no historical values are sent (a slow HMI's TCP backpressure reaches the backlog, not live data).
   */
  maxUndelivered: number;
  /** How often Sparkplug messages leave (coalescing a burst into one DDATA per device). */
  flushMs: number;
  /** How often the unified namespace is brought up to date (at most one message per variable). */
  unsFlushMs: number;
};

export const DEFAULT_HMI_OPTIONS: HmiNamespacesOptions = {
  ...DEFAULT_EDGE_NODE_OPTIONS,
  maxUndelivered: 20,
  flushMs: 100,
  unsFlushMs: 1_000,
};

/** `stale`: the project changed, and its model is read again (`reloading`) before it publishes more. */
type Entry = { project: HmiProject; node: SparkplugEdgeNode; stale: boolean; reloading: boolean };

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * What SCADA HMIs read from the embedded broker besides caudal/v1/…/live (issue 11): each
 * project's Sparkplug B 3.0 edge node and its unified namespace, from the services' events
 * (committed telemetry, the agent's status and heartbeats, comm_loss alarms, changes of the
 * field model) and the HMIs' own commands (Rebirth, STATE).
 *
 * Lifecycle: the constructor only assigns; start() loads every project (so the unified
 * namespace holds its retained values again after a restart), subscribes and starts the flush
 * timer; stop() publishes each live node's NDEATH and waits for it before the broker closes.
 *
 * A project is read through the store, asynchronously: the events of one project are taken in the
 * order they came, each once its project is loaded (#whenLoaded).
 */
export class HmiNamespaces {
  /** How HMIs address each project; the broker's access checks read it. */
  readonly names: ProjectNamesCache;
  readonly #ctx: ServiceContext;
  readonly #publish: RawPublish;
  readonly #options: HmiNamespacesOptions;
  readonly #entries = new Map<string, Entry>();
  /** Projects being read, so that two events load one once. */
  readonly #loading = new Map<string, Promise<Entry | undefined>>();
  /** Per project, the event work not done yet, chained in the order the events came. */
  readonly #queues = new Map<string, Promise<void>>();
  /** Deleted projects: a read that started before the deletion must not bring one back. */
  readonly #gone = new Set<string>();
  readonly #inflight = new Set<Promise<void>>();
  /** Sparkplug messages not yet delivered (see maxUndelivered). */
  #undelivered = 0;
  #timer: NodeJS.Timeout | undefined;
  #lastUns = 0;
  #droppedLogged = 0;

  constructor(ctx: ServiceContext, publish: RawPublish, options: Partial<HmiNamespacesOptions> = {}) {
    this.#ctx = ctx;
    this.#publish = publish;
    this.#options = { ...DEFAULT_HMI_OPTIONS, ...options };
    this.names = new ProjectNamesCache(ctx.store.field);
  }

  async start(): Promise<void> {
    if (this.#timer) return;
    const { events, store } = this.#ctx;
    for (const { id } of await store.field.projects()) await this.#ensure(id);
    events.on("telemetry", this.observe);
    events.on("agentStatus", this.#onAgentStatus);
    events.on("agentHeartbeat", this.#onHeartbeat);
    events.on("alarm", this.#onAlarm);
    events.on("configChanged", this.#onConfigChanged);
    events.on("projectDeleted", this.#onProjectDeleted);
    this.#timer = setInterval(() => this.flush(), this.#options.flushMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (!this.#timer) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    const { events } = this.#ctx;
    events.off("telemetry", this.observe);
    events.off("agentStatus", this.#onAgentStatus);
    events.off("agentHeartbeat", this.#onHeartbeat);
    events.off("alarm", this.#onAlarm);
    events.off("configChanged", this.#onConfigChanged);
    events.off("projectDeleted", this.#onProjectDeleted);
    // An edge node that disconnects on purpose says so with its NDEATH [tck-id-payloads-ndeath-will-message-publisher].
    const now = this.#now();
    await Promise.all([...this.#queues.values(), ...this.#loading.values()]);
    for (const { node } of this.#entries.values()) node.stop(now);
    await Promise.all([...this.#inflight]);
    this.#entries.clear();
    this.names.clear();
  }

  /** Committed telemetry; runs inside ingest's emit, so it never throws. */
  readonly observe = (event: TelemetryEvent): void => {
    for (const s of event.series) {
      try {
        this.#entries.get(s.projectId)?.project.observe(s);
      } catch (err) {
        this.#ctx.logger.error("HMI namespaces: telemetry not taken", {
          project_id: s.projectId,
          error: errorText(err),
        });
      }
    }
  };

  /** A publish of an HMI, allowed by hmi-access.ts: a Rebirth, or its primary host's STATE. */
  published(projectId: string, action: HmiPublish): void {
    this.#whenLoaded(projectId, (entry) => {
      if (action.kind === "rebirth") entry.node.rebirth();
      else if (action.kind === "state") entry.node.hostState(action.hostId, action.state);
    });
  }

  /** Publishes what is due (the timer calls it; tests may too). */
  flush(): void {
    const now = this.#now();
    const uns = now - this.#lastUns >= this.#options.unsFlushMs;
    if (uns) this.#lastUns = now;
    for (const [projectId, entry] of this.#entries) {
      try {
        if (entry.stale) {
          this.#reload(projectId, entry);
          continue;
        }
        entry.node.flush(now, this.#undelivered < this.#options.maxUndelivered);
        if (uns) flushUns(entry.project, this.#retained);
        this.#reportDropped(projectId, entry);
      } catch (err) {
        this.#ctx.logger.error("HMI namespaces: publishing failed", {
          project_id: projectId,
          error: errorText(err),
        });
      }
    }
  }

  /** The project's entry, read first when it is not loaded; undefined when the project is gone. */
  #ensure(projectId: string): Promise<Entry | undefined> {
    const known = this.#entries.get(projectId);
    if (known) return Promise.resolve(known);
    let loading = this.#loading.get(projectId);
    if (!loading) {
      loading = this.#load(projectId).finally(() => this.#loading.delete(projectId));
      this.#loading.set(projectId, loading);
    }
    return loading;
  }

  async #load(projectId: string): Promise<Entry | undefined> {
    const names = await this.names.load(projectId);
    const model = names && (await loadFieldModel(this.#ctx.store.hmi, projectId));
    if (!names || !model || this.#gone.has(projectId)) return undefined;
    const project = new HmiProject(names, model);
    const node = new SparkplugEdgeNode(project, this.#sparkplug, this.#options);
    const entry = { project, node, stale: false, reloading: false };
    this.#entries.set(projectId, entry);
    return entry;
  }

  /** Runs `work` on the project's entry once it is loaded, after the work of earlier events. */
  #whenLoaded(projectId: string, work: (entry: Entry) => void | Promise<void>): void {
    const previous = this.#queues.get(projectId) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        const entry = await this.#ensure(projectId);
        if (entry) await work(entry);
      })
      .catch((err: unknown) =>
        this.#ctx.logger.error("HMI namespaces: event not taken", {
          project_id: projectId,
          error: errorText(err),
        }),
      );
    this.#queues.set(projectId, next);
    void next.then(() => {
      if (this.#queues.get(projectId) === next) this.#queues.delete(projectId);
    });
  }

  /** Reads the project again after a change, then publishes under what changed; it is removed when gone. */
  #reload(projectId: string, entry: Entry): void {
    if (entry.reloading) return;
    entry.reloading = true;
    this.#whenLoaded(projectId, async () => {
      entry.stale = false;
      const names = await this.names.load(projectId);
      const model = names && (await loadFieldModel(this.#ctx.store.hmi, projectId));
      entry.reloading = false;
      if (this.#entries.get(projectId) !== entry) return; // deleted meanwhile
      const now = this.#now();
      if (!names || !model) {
        this.#remove(projectId, entry, now);
        return;
      }
      const previous = entry.project.names;
      entry.project.apply(names, model);
      if (
        previous.group !== names.group ||
        previous.edgeNodeId !== names.edgeNodeId ||
        previous.primaryHostId !== names.primaryHostId
      ) {
        entry.node.namesChanged(now, previous);
      }
    });
  }

  #remove(projectId: string, entry: Entry, now: number): void {
    entry.node.stop(now);
    entry.project.clearAll();
    flushUns(entry.project, this.#retained);
    this.#entries.delete(projectId);
    this.names.forget(projectId);
  }

  readonly #onAgentStatus = ({ projectId, status }: { projectId: string; status: "online" | "offline" }) => {
    this.#whenLoaded(projectId, async (entry) => {
      if (status === "offline") entry.node.agentOffline(this.#now());
      // A new session takes the next bdSeq, stored before the NBIRTH uses it.
      else if (!entry.node.agentIsOnline)
        entry.node.agentOnline(await this.#ctx.store.hmi.nextBdSeq(projectId));
    });
  };

  readonly #onHeartbeat = ({
    projectId,
    heartbeat,
  }: {
    projectId: string;
    heartbeat: Payload<"heartbeat">;
  }) => {
    this.#whenLoaded(projectId, (entry) =>
      entry.project.setNodeInfo({
        agentVersion: heartbeat.agent_version,
        configVersion: heartbeat.config.version,
        bufferPoints: heartbeat.buffer.points,
      }),
    );
  };

  readonly #onAlarm = ({ event, alarm }: AlarmNotice): void => {
    if (alarm.alarm_type !== "comm_loss" || alarm.asset_id === null || event === "acknowledged") return;
    const project = this.#entries.get(alarm.project_id)?.project;
    const device = project?.devices.get(alarm.asset_id);
    if (project && device) project.setCommLoss(device, event === "raised");
  };

  readonly #onConfigChanged = ({ projectId }: { projectId: string }): void => {
    // Access checks get the new names as soon as they are read; the model is read again at the
    // next flush (a new project is loaded now).
    this.names.load(projectId).catch((err: unknown) =>
      this.#ctx.logger.error("HMI namespaces: project names not read", {
        project_id: projectId,
        error: errorText(err),
      }),
    );
    const entry = this.#entries.get(projectId);
    if (entry) entry.stale = true;
    else this.#whenLoaded(projectId, () => {});
  };

  readonly #onProjectDeleted = ({ projectId }: { projectId: string }): void => {
    this.#gone.add(projectId);
    const entry = this.#entries.get(projectId);
    if (entry) this.#remove(projectId, entry, this.#now());
    this.names.forget(projectId);
  };

  readonly #sparkplug = (topic: string, payload: Uint8Array, death: boolean): void => {
    this.#undelivered += 1;
    const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
    void this.#send(topic, bytes, false, death ? 1 : 0).then(() => {
      this.#undelivered -= 1;
    });
  };

  readonly #retained = (topic: string, payload: Buffer): void => {
    void this.#send(topic, payload, true, 0);
  };

  /** Resolves once the broker has delivered it (or failed to, which is logged). */
  #send(topic: string, payload: Buffer, retain: boolean, qos: 0 | 1): Promise<void> {
    const sent = this.#publish(topic, payload, retain, qos).catch((err: unknown) =>
      this.#ctx.logger.error("HMI namespaces: publish failed", { topic, error: errorText(err) }),
    );
    this.#inflight.add(sent);
    return sent.then(() => {
      this.#inflight.delete(sent);
    });
  }

  /** Historical values dropped because HMIs were away too long: said at most every 10 s. */
  #reportDropped(projectId: string, entry: Entry): void {
    const dropped = entry.project.history.dropped;
    if (dropped === 0) return;
    const now = this.#now();
    if (now - this.#droppedLogged < 10_000) return;
    this.#droppedLogged = now;
    this.#ctx.logger.warn("Sparkplug: historical values dropped (queue full)", {
      project_id: projectId,
      dropped,
      queued: entry.project.history.size,
    });
  }

  #now(): number {
    return this.#ctx.clock.now().getTime();
  }
}
