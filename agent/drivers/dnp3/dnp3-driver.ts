import { Socket } from "node:net";
import type { AgentVariable } from "../../../shared/mqtt/agent-config.ts";
import { type Driver, LinkError, type TagResult } from "../driver.ts";
import { parsePointAddress } from "./address.ts";
import { Dnp3Channel } from "./channel.ts";
import { Master } from "./master.ts";
import { type Dnp3DriverOptions, dnp3OptionsProblems } from "./options.ts";
import { PointTable } from "./point-table.ts";

/**
 * DNP3 (IEEE 1815) master over TCP.
 *
 * DNP3 is report-by-exception: the outstation keeps events, the master polls for them. So
 * `read()` sends nothing. The driver keeps a point table that the master session updates on its
 * own clock: an integrity poll (classes 1, 2, 3, 0) at connect, at `integrityPollIntervalMs` and
 * after every outstation restart, and event polls (classes 1, 2, 3) at `eventPollIntervalMs`.
 * `read()` answers each variable from that table:
 *   - the latest value, `good` when its flags say ONLINE (and not COMM_LOST, not out of range);
 *   - `device_exception` / `comm_error` with the flags when they do not;
 *   - `timeout` for every variable while the outstation is silent (its last request went
 *     unanswered and nothing has arrived since);
 *   - `config_error` for an address that is not `g<group>:<index>`, or a point the outstation
 *     never reported.
 * Link policy: a closed socket, or `MAX_SILENT_REQUESTS` unanswered requests in a row (a TCP
 * connection can stay open to a dead device), ends the connection: `read()` then rejects with a
 * LinkError and the poller reconnects with backoff. `connect()` resolves only once the first
 * integrity poll is answered, so the first `read()` already has data.
 */
export const MAX_SILENT_REQUESTS = 3;

type Session = { socket: Socket; master: Master; lost: string | undefined };

export class Dnp3Driver implements Driver {
  readonly #options: Dnp3DriverOptions;
  readonly #points = new PointTable();
  #session: Session | undefined;

  constructor(options: Dnp3DriverOptions) {
    this.#options = options;
  }

  get connected(): boolean {
    return this.#session !== undefined && this.#session.lost === undefined;
  }

  async connect(): Promise<void> {
    await this.close();
    const problems = dnp3OptionsProblems(this.#options);
    if (problems.length > 0) throw new LinkError(`invalid DNP3 settings: ${problems.join("; ")}`);
    const o = this.#options;
    const socket = new Socket();
    const channel = new Dnp3Channel(socket, {
      role: "master",
      localAddress: o.masterAddress,
      remoteAddress: o.outstationAddress,
      onApdu: (apdu) => master.receive(apdu),
    });
    const master = new Master(
      {
        integrityPollIntervalMs: o.integrityPollIntervalMs,
        eventPollIntervalMs: o.eventPollIntervalMs,
        timeoutMs: o.timeoutMs,
      },
      {
        send: (apdu) => {
          if (session.lost === undefined) channel.sendApdu(apdu);
        },
        onMeasurements: (ms) => this.#points.apply(ms),
        onTimeout: (n) => {
          if (n >= MAX_SILENT_REQUESTS) lose(`outstation silent: ${n} requests unanswered`);
        },
      },
    );
    const session: Session = { socket, master, lost: undefined };
    const lose = (reason: string) => {
      if (session.lost !== undefined) return;
      session.lost = reason;
      master.stop();
      socket.destroy();
    };
    socket.on("error", (err) => lose(`socket error: ${err.message}`));
    socket.on("close", () => lose("connection closed by the outstation"));
    try {
      await this.#open(socket);
      socket.setNoDelay(true);
      channel.start();
      this.#points.clear();
      this.#session = session;
      await session.master.start();
    } catch (err) {
      lose("connect failed");
      this.#session = undefined;
      throw new LinkError(`connect failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  #open(socket: Socket): Promise<void> {
    const { host, port, timeoutMs } = this.#options;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
      socket.once("connect", () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      socket.connect(port, host);
    });
  }

  async read(variables: readonly AgentVariable[]): Promise<TagResult[]> {
    const session = this.#session;
    if (!session || session.lost !== undefined) throw new LinkError(session?.lost ?? "not connected");
    const silent = session.master.silent;
    return variables.map((v): TagResult => {
      const parsed = parsePointAddress(v.address);
      if (!parsed.ok) return { variableId: v.id, value: null, quality: "config_error", detail: parsed.error };
      if (silent)
        return {
          variableId: v.id,
          value: null,
          quality: "timeout",
          detail: "outstation did not answer the last poll",
        };
      return this.#points.resultFor(v, parsed.point);
    });
  }

  async close(): Promise<void> {
    const session = this.#session;
    this.#session = undefined;
    if (!session) return;
    session.lost ??= "closed";
    session.master.stop();
    session.socket.destroy();
  }
}
