import { parseDeviceSettings } from "../../../shared/field/protocol-config.ts";
import { S7_DEFAULT_PORT } from "../../../shared/field/protocols/s7.ts";
import type { AgentDevice, AgentVariable } from "../../../shared/mqtt/agent-config.ts";
import { type Driver, LinkError, type TagResult } from "../driver.ts";
import {
  createNodeS7Client,
  NODES7_CONNECTED,
  type NodeS7Client,
  type NodeS7Values,
} from "./nodes7-client.ts";

/**
 * Siemens S7 over ISO-on-TCP (RFC 1006), through nodes7.
 *
 * Every variable of one poll is read in one `readAllItems`: nodes7 packs the addresses into
 * multi-variable read requests (S7 function 0x04, several items per PDU). The addresses are
 * nodes7's own syntax, checked by the shared grammar (shared/field/protocols/s7.ts) before a
 * deployment is applied.
 *
 * Link policy: nodes7 reconnects by itself after an error, on its own clock. The poller owns
 * reconnection here (with backoff and a status people can see), so a read that finds the
 * connection gone, or that gets no answer within the timeout, is a LinkError: the poller closes
 * this client, which stops nodes7's own retries, and connects a fresh one.
 */
export class S7Driver implements Driver {
  readonly #device: AgentDevice;
  readonly #timeoutMs: number;
  #client: NodeS7Client | undefined;
  /** The addresses nodes7 currently reads on every `readAllItems`. */
  readonly #items = new Set<string>();

  constructor(device: AgentDevice, options: { timeoutMs: number }) {
    this.#device = device;
    this.#timeoutMs = options.timeoutMs;
  }

  get connected(): boolean {
    return this.#client?.isoConnectionState === NODES7_CONNECTED;
  }

  async connect(): Promise<void> {
    await this.close();
    const settings = parseDeviceSettings("s7", this.#device.settings);
    if (!settings.ok) throw new LinkError(`invalid S7 settings: ${settings.problems[0]?.message ?? ""}`);
    const client = createNodeS7Client();
    this.#client = client;
    const params = {
      host: this.#device.host ?? "",
      port: this.#device.port ?? S7_DEFAULT_PORT,
      rack: settings.settings.rack,
      slot: settings.settings.slot,
      timeout: this.#timeoutMs,
    };
    await this.#within(this.#timeoutMs * 2, "connect", (done) =>
      client.initiateConnection(params, (err) => {
        if (err) done(new LinkError(`S7 connect to ${params.host}:${params.port} failed: ${describe(err)}`));
        else done();
      }),
    );
    if (!this.connected) throw new LinkError(`S7 connect to ${params.host}:${params.port} failed`);
  }

  async read(variables: readonly AgentVariable[]): Promise<TagResult[]> {
    const client = this.#client;
    if (!client || !this.connected) throw new LinkError("S7 connection is not open");
    this.#track(client, variables);
    const values = await this.#within<NodeS7Values>(this.#timeoutMs * 2, "read", (done) =>
      client.readAllItems((_bad, read) => done(undefined, read)),
    );
    if (!this.connected) throw new LinkError("S7 connection lost during the read");
    return variables.map((v) => tagResult(v, values[itemOf(v)]));
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#items.clear();
    if (!client) return;
    await new Promise<void>((resolve) => client.dropConnection(resolve));
  }

  /** Makes nodes7's item list exactly the requested addresses (added or removed before the next read). */
  #track(client: NodeS7Client, variables: readonly AgentVariable[]): void {
    const wanted = new Set(variables.map(itemOf));
    const gone = [...this.#items].filter((item) => !wanted.has(item));
    const added = [...wanted].filter((item) => !this.#items.has(item));
    if (gone.length > 0) client.removeItems(gone);
    if (added.length > 0) client.addItems(added);
    for (const item of gone) this.#items.delete(item);
    for (const item of added) this.#items.add(item);
  }

  /** Runs one nodes7 call with a deadline of our own: nodes7's callbacks may never come. */
  #within<T = void>(
    ms: number,
    what: string,
    start: (done: (err?: Error, value?: T) => void) => void,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(new LinkError(`S7 ${what} timed out after ${ms} ms`));
      }, ms);
      start((err, value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) reject(err);
        else resolve(value as T);
      });
    });
  }
}

/** nodes7 keys results by the address as it was added. */
function itemOf(v: AgentVariable): string {
  return (v.address ?? "").toUpperCase();
}

/** nodes7 reports an item it could not read as the string "BAD <code>" (S7 return code). */
function tagResult(v: AgentVariable, value: unknown): TagResult {
  if (typeof value === "boolean") return { variableId: v.id, value: value ? 1 : 0, quality: "good" };
  if (typeof value === "number" && Number.isFinite(value)) {
    return { variableId: v.id, value: value * (v.scale_factor ?? 1), quality: "good" };
  }
  const detail =
    typeof value === "string" && value.startsWith("BAD")
      ? `the PLC refused ${itemOf(v)} (${value}: no such area, data block or offset)`
      : `no value for ${itemOf(v)}`;
  return { variableId: v.id, value: null, quality: "device_exception", detail };
}

function describe(err: { code?: string; message?: string }): string {
  return err.message ?? err.code ?? "unknown error";
}
