import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import { FUNC } from "../../agent/drivers/dnp3/app-control.ts";
import { parseRequest, type Request } from "../../agent/drivers/dnp3/app-request.ts";
import { Dnp3Channel } from "../../agent/drivers/dnp3/channel.ts";
import { IIN1 } from "../../agent/drivers/dnp3/iin.ts";
import { hex, RESPONSES } from "../../agent/drivers/dnp3/test-vectors.ts";

/**
 * A scripted DNP3 outstation over TCP, for the driver's end-to-end test and the demo. It reads
 * requests with the agent's own codec and answers with recorded responses (the vectors of
 * agent/drivers/dnp3/test-vectors.ts, taken from opendnp3's and stepfunc's tests):
 *   - a READ that includes class 0 gets `integrity` (one or more fragments);
 *   - a READ of event classes only gets the next entry of `events`, or a null response;
 *   - a WRITE of g80v1 index 7 = 0 clears the restart IIN, a WRITE of g50v1 the need-time IIN;
 *   - a fragment with CON waits for the master's CONFIRM before the next one is sent, and an
 *     event response leaves the queue only once confirmed (IEEE 1815-2012 §4.6.3).
 * Object data is replayed byte for byte. Only the header's SEQ and IIN are the outstation's
 * own: the SEQ must echo the request's (§4.2.2.4.1.4), and the IIN is state (restart, need
 * time, events pending), whatever the recording's outstation had at the time.
 */
export type ScriptedOutstationOptions = {
  /** This outstation's link address. */
  address: number;
  /** The master's link address. */
  masterAddress: number;
  /** Recorded class 0 response, as hex APDU fragments. */
  integrity: readonly string[];
  /** How long to wait for a CONFIRM before giving up on a fragment. */
  confirmTimeoutMs?: number;
};

type Connection = {
  socket: Socket;
  channel: Dnp3Channel;
  awaitingConfirm: ((seq: number) => void) | undefined;
};

export class ScriptedOutstation {
  /** Every request received, in order. */
  readonly requests: Request[] = [];
  /** Recorded event responses still to be delivered (each as hex fragments). */
  readonly events: string[][] = [];
  /** The class 0 response; replace it to change what integrity polls see. */
  integrity: readonly string[];
  /** IIN1.7: set at start-up and by `restart()`, cleared by the master's write. */
  restartIin = true;
  /** IIN1.4: set by `requestTime()`, cleared by a time write. */
  needTime = false;
  /** The last time the master wrote, ms since 1970. */
  writtenTime: number | undefined;
  /** When set, requests are read but never answered (a hung device). */
  mute = false;
  readonly #options: ScriptedOutstationOptions;
  #server: Server | undefined;
  readonly #connections = new Set<Connection>();

  constructor(options: ScriptedOutstationOptions) {
    this.#options = options;
    this.integrity = options.integrity;
  }

  get port(): number {
    return (this.#server?.address() as AddressInfo | null)?.port ?? 0;
  }

  listen(port = 0, host = "127.0.0.1"): Promise<void> {
    const server = createServer((socket) => this.#serve(socket));
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
  }

  async close(): Promise<void> {
    for (const c of this.#connections) c.socket.destroy();
    this.#connections.clear();
    const server = this.#server;
    this.#server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Simulates a device restart: IIN1.7 is set until the master clears it. */
  restart(): void {
    this.restartIin = true;
  }

  requestTime(): void {
    this.needTime = true;
  }

  /** Sends a recorded unsolicited response (e.g. a null unsolicited with restart) to every master. */
  sendUnsolicited(recorded: string): void {
    for (const c of this.#connections) c.channel.sendApdu(hex(recorded));
  }

  #serve(socket: Socket): void {
    socket.setNoDelay(true);
    socket.on("error", () => {});
    const connection: Connection = {
      socket,
      awaitingConfirm: undefined,
      channel: new Dnp3Channel(socket, {
        role: "outstation",
        localAddress: this.#options.address,
        remoteAddress: this.#options.masterAddress,
        onApdu: (apdu) => {
          void this.#onRequest(connection, apdu);
        },
      }),
    };
    this.#connections.add(connection);
    socket.on("close", () => this.#connections.delete(connection));
    connection.channel.start();
  }

  async #onRequest(c: Connection, apdu: Uint8Array): Promise<void> {
    const parsed = parseRequest(apdu);
    if (!parsed.ok) return;
    const r = parsed.request;
    this.requests.push(r);
    if (r.func === FUNC.CONFIRM) {
      c.awaitingConfirm?.(r.seq);
      return;
    }
    if (this.mute) return;
    if (r.func === FUNC.WRITE) {
      if (r.clearsRestart) this.restartIin = false;
      if (r.writtenTime !== undefined) {
        this.writtenTime = r.writtenTime;
        this.needTime = false;
      }
      await this.#reply(c, r.seq, [RESPONSES.nullResponse]);
      return;
    }
    if (r.func !== FUNC.READ) {
      await this.#reply(c, r.seq, [RESPONSES.nullResponse], 0x01); // IIN2.0 NO_FUNC_CODE_SUPPORT
      return;
    }
    if (r.classes.includes(0)) {
      await this.#reply(c, r.seq, this.integrity);
      return;
    }
    const next = this.events[0];
    if (!next || r.classes.length === 0) {
      await this.#reply(c, r.seq, [RESPONSES.nullResponse]);
      return;
    }
    if (await this.#reply(c, r.seq, next)) this.events.shift();
  }

  /**
   * Sends the fragments with SEQ counting up from the request's and this outstation's IIN.
   * Resolves true when every fragment that asked for a confirmation got one.
   */
  async #reply(c: Connection, requestSeq: number, fragments: readonly string[], iin2 = 0): Promise<boolean> {
    let seq = requestSeq;
    for (const recorded of fragments) {
      const apdu = hex(recorded);
      apdu[0] = ((apdu[0] ?? 0) & 0xf0) | seq;
      apdu[2] = this.#iin1();
      apdu[3] = iin2;
      const needsConfirm = ((apdu[0] ?? 0) & 0x20) !== 0;
      const confirmed = needsConfirm ? this.#confirmOf(c, seq) : Promise.resolve(true);
      c.channel.sendApdu(apdu);
      if (!(await confirmed)) return false;
      seq = (seq + 1) & 0x0f;
    }
    return true;
  }

  #confirmOf(c: Connection, seq: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        c.awaitingConfirm = undefined;
        resolve(false);
      }, this.#options.confirmTimeoutMs ?? 2000);
      c.awaitingConfirm = (got) => {
        if (got !== seq) return;
        clearTimeout(timer);
        c.awaitingConfirm = undefined;
        resolve(true);
      };
    });
  }

  #iin1(): number {
    return (
      (this.restartIin ? IIN1.DEVICE_RESTART : 0) |
      (this.needTime ? IIN1.NEED_TIME : 0) |
      (this.events.length > 0 ? IIN1.CLASS1_EVENTS : 0)
    );
  }
}
