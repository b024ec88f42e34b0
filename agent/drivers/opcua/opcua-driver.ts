import { hostname } from "node:os";
import { parseDeviceSettings } from "../../../shared/field/protocol-config.ts";
import { OPC_UA_DEFAULT_PORT } from "../../../shared/field/protocols/opc-ua.ts";
import type { AgentDevice, AgentVariable } from "../../../shared/mqtt/agent-config.ts";
import { type BrowseNode, type Driver, LinkError, type Quality, type TagResult } from "../driver.ts";
import { routeOpcUaLog } from "./opcua-log.ts";

type OpcUa = typeof import("./opcua-sdk.ts");
type Client = InstanceType<OpcUa["OPCUAClient"]>;
type Session = import("./opcua-sdk.ts").ClientSession;
type Subscription = import("./opcua-sdk.ts").ClientSubscription;
type DataValue = import("./opcua-sdk.ts").DataValue;
type UserIdentityInfo = import("./opcua-sdk.ts").UserIdentityInfo;

/** The agent's OPC UA application name; its URI is `urn:<host>:caudal-agent`, as in its certificate. */
export const OPC_UA_APPLICATION_NAME = "caudal-agent";

type Cached = { value: number | null; quality: Quality; detail?: string };

/**
 * OPC UA client (node-opcua), one session per device.
 *
 * Values come from a subscription, never from read polling: each variable is a monitored item
 * sampled at its `poll_interval_ms` (queue 1, newest wins), and `read()` answers from what the
 * server last reported. Status codes map to quality: Good → good; Bad → device_exception (with
 * the status name; BadNodeIdUnknown and friends → config_error); Uncertain → device_exception,
 * since a value the server itself doubts is not fit for royalty or alarm figures.
 *
 * Certificates live in `<data_dir>/pki` (node-opcua's layout: own/, trusted/certs, rejected/).
 * The agent's own certificate is made there on first use, with the application URI above. A
 * server certificate that is not trusted is refused and lands in rejected/; `caudal-agent trust`
 * (or moving the file to trusted/certs/) trusts it, and the next reconnect (the poller's backoff)
 * picks it up without a restart. With `trust_on_first_use` the first certificate seen is trusted.
 *
 * Link policy: a lost connection or session makes `read()` throw LinkError; the poller closes this
 * driver and connects again with backoff, which re-creates the session and the subscription.
 */
export class OpcUaDriver implements Driver {
  readonly #device: AgentDevice;
  readonly #timeoutMs: number;
  readonly #pkiDir: string;
  #client: Client | undefined;
  #session: Session | undefined;
  #subscription: Subscription | undefined;
  #lost: string | undefined;
  readonly #cache = new Map<string, Cached>();
  readonly #monitored = new Set<string>();

  constructor(device: AgentDevice, options: { timeoutMs: number; pkiDir: string }) {
    this.#device = device;
    this.#timeoutMs = options.timeoutMs;
    this.#pkiDir = options.pkiDir;
  }

  get connected(): boolean {
    return this.#session !== undefined && this.#lost === undefined;
  }

  get endpoint(): string {
    const settings = parseDeviceSettings("opc_ua", this.#device.settings);
    const path = settings.ok ? settings.settings.endpoint_path : "";
    return `opc.tcp://${this.#device.host ?? ""}:${this.#device.port ?? OPC_UA_DEFAULT_PORT}${path}`;
  }

  async connect(): Promise<void> {
    await this.close();
    const parsed = parseDeviceSettings("opc_ua", this.#device.settings);
    if (!parsed.ok) throw new LinkError(`invalid OPC UA settings: ${parsed.problems[0]?.message ?? ""}`);
    const s = parsed.settings;
    const ua = await import("./opcua-sdk.ts");
    routeOpcUaLog(ua);
    const certificates = new ua.OPCUACertificateManager({
      rootFolder: this.#pkiDir,
      automaticallyAcceptUnknownCertificate: s.trust_on_first_use,
    });
    await certificates.initialize();
    const client = ua.OPCUAClient.create({
      applicationName: OPC_UA_APPLICATION_NAME,
      applicationUri: `urn:${hostname()}:${OPC_UA_APPLICATION_NAME}`,
      clientCertificateManager: certificates,
      securityMode: ua.MessageSecurityMode[s.security_mode],
      securityPolicy:
        ua.SecurityPolicy[s.security_policy ?? (s.security_mode === "None" ? "None" : "Basic256Sha256")],
      endpointMustExist: false,
      // The poller owns reconnection (with backoff and a status people see): one attempt here.
      connectionStrategy: { maxRetry: 0, initialDelay: 100, maxDelay: 100 },
      transportTimeout: this.#timeoutMs,
      defaultTransactionTimeout: this.#timeoutMs,
      keepSessionAlive: true,
    });
    this.#client = client;
    this.#lost = undefined;
    client.on("connection_lost", () => {
      this.#lost = "connection to the OPC UA server lost";
    });
    try {
      await withDeadline(client.connect(this.endpoint), this.#timeoutMs * 2, "connect");
      const identity: UserIdentityInfo = s.username
        ? { type: ua.UserTokenType.UserName, userName: s.username, password: s.password ?? "" }
        : { type: ua.UserTokenType.Anonymous };
      const session = await withDeadline(client.createSession(identity), this.#timeoutMs * 2, "session");
      this.#session = session;
      session.on("session_closed", () => {
        this.#lost = "OPC UA session closed by the server";
      });
      this.#subscription = await session.createSubscription2({
        requestedPublishingInterval: Math.min(...this.#device.variables.map((v) => v.poll_interval_ms), 1000),
        requestedLifetimeCount: 600,
        requestedMaxKeepAliveCount: 20,
        maxNotificationsPerPublish: 10_000,
        publishingEnabled: true,
        priority: 1,
      });
    } catch (err) {
      await this.close();
      throw new LinkError(`OPC UA ${this.endpoint}: ${describe(err)}`);
    }
  }

  async read(variables: readonly AgentVariable[]): Promise<TagResult[]> {
    if (!this.connected || !this.#subscription)
      throw new LinkError(this.#lost ?? "OPC UA session is not open");
    const fresh = variables.filter((v) => !this.#monitored.has(v.id));
    if (fresh.length > 0) await this.#monitor(this.#subscription, fresh);
    return variables.map((v) => {
      const cached = this.#cache.get(v.id);
      if (!cached)
        return { variableId: v.id, value: null, quality: "timeout", detail: "no value from the server yet" };
      return { variableId: v.id, ...cached };
    });
  }

  /**
   * The children of a node (the Objects folder when null) over hierarchical references: NodeId,
   * browse name, node class, and for variables the data type's name, read in one request.
   */
  async browse(nodeId: string | null): Promise<BrowseNode[]> {
    const session = this.#session;
    if (!session || !this.connected) throw new LinkError(this.#lost ?? "OPC UA session is not open");
    const ua = await import("./opcua-sdk.ts");
    const result = await withDeadline(
      session.browse({
        nodeId: nodeId ?? ua.ObjectIds.ObjectsFolder,
        referenceTypeId: ua.ReferenceTypeIds.HierarchicalReferences,
        includeSubtypes: true,
        browseDirection: ua.BrowseDirection.Forward,
        nodeClassMask: 0,
        resultMask: 0x3f,
      }),
      this.#timeoutMs,
      "browse",
    );
    if (!result.statusCode.isGood())
      throw new Error(`browse ${nodeId ?? "Objects"}: ${result.statusCode.name}`);
    const references = result.references ?? [];
    const variables = references.filter((r) => r.nodeClass === ua.NodeClass.Variable);
    const types = new Map<string, string>();
    if (variables.length > 0) {
      const read = await withDeadline(
        session.read(variables.map((r) => ({ nodeId: r.nodeId, attributeId: ua.AttributeIds.DataType }))),
        this.#timeoutMs,
        "browse",
      );
      read.forEach((dv, i) => {
        const ref = variables[i];
        const typeId: unknown = dv.value.value;
        if (!ref || !(typeId instanceof ua.NodeId)) return;
        const builtIn = ua.DataType[Number(typeId.value)];
        types.set(ref.nodeId.toString(), typeId.namespace === 0 && builtIn ? builtIn : typeId.toString());
      });
    }
    return references.map((r) => ({
      node_id: r.nodeId.toString(),
      browse_name: r.browseName.toString(),
      node_class: ua.NodeClass[r.nodeClass] ?? String(r.nodeClass),
      data_type: types.get(r.nodeId.toString()) ?? null,
    }));
  }

  async close(): Promise<void> {
    const client = this.#client;
    const session = this.#session;
    this.#client = undefined;
    this.#session = undefined;
    this.#subscription = undefined;
    this.#monitored.clear();
    this.#cache.clear();
    if (session) await withDeadline(session.close(), this.#timeoutMs, "close").catch(() => {});
    if (client) await withDeadline(client.disconnect(), this.#timeoutMs, "disconnect").catch(() => {});
  }

  /**
   * One monitored item per variable, sampled at its poll interval, created in one request per
   * interval (a monitored-item group: 10,000 items are one CreateMonitoredItems call, not 10,000).
   * An item the server refuses (an unknown NodeId) is that variable's config_error. The first
   * values are awaited briefly, so the first read after a (re)connect has data.
   */
  async #monitor(subscription: Subscription, fresh: readonly AgentVariable[]): Promise<void> {
    const ua = await import("./opcua-sdk.ts");
    const byInterval = new Map<number, AgentVariable[]>();
    for (const v of fresh) {
      this.#monitored.add(v.id);
      byInterval.set(v.poll_interval_ms, [...(byInterval.get(v.poll_interval_ms) ?? []), v]);
    }
    const pending = new Set(fresh.map((v) => v.id));
    let allArrived: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      allArrived = resolve;
    });
    const settle = (id: string) => {
      pending.delete(id);
      if (pending.size === 0) allArrived();
    };
    for (const [interval, group] of byInterval) {
      const items = ua.ClientMonitoredItemGroup.create(
        subscription,
        group.map((v) => ({ nodeId: v.address ?? "", attributeId: ua.AttributeIds.Value })),
        { samplingInterval: interval, queueSize: 1, discardOldest: true },
        ua.TimestampsToReturn.Source,
      );
      items.on("changed", (_item, dv: DataValue, index: number) => {
        const v = group[index];
        if (!v) return;
        this.#cache.set(v.id, fromDataValue(v, dv));
        settle(v.id);
      });
      items.on("initialized", () => {
        items.monitoredItems.forEach((item, index) => {
          const v = group[index];
          if (!v || item.statusCode.isGood()) return;
          this.#cache.set(v.id, { value: null, quality: "config_error", detail: item.statusCode.name });
          settle(v.id);
        });
      });
      items.on("err", (message: string) => {
        for (const v of group) {
          this.#cache.set(v.id, { value: null, quality: "config_error", detail: message });
          settle(v.id);
        }
      });
    }
    await Promise.race([arrived, sleep(this.#timeoutMs)]);
  }
}

function fromDataValue(v: AgentVariable, dv: DataValue): Cached {
  const status = dv.statusCode;
  if (status.isGood()) {
    const raw: unknown = dv.value.value;
    const value = typeof raw === "boolean" ? (raw ? 1 : 0) : typeof raw === "number" ? raw : Number(raw);
    if (!Number.isFinite(value)) {
      return { value: null, quality: "config_error", detail: `${v.address ?? ""} is not a number` };
    }
    return { value: value * (v.scale_factor ?? 1), quality: "good" };
  }
  const name = status.name;
  const config =
    /BadNodeIdUnknown|BadNodeIdInvalid|BadAttributeIdInvalid|BadNotReadable|BadUserAccessDenied/.test(name);
  return { value: null, quality: config ? "config_error" : "device_exception", detail: name };
}

function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
