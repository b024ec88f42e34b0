import { createRequire } from "node:module";
import { freePort } from "../../scripts/testing/free-port.ts";

/** The parts of node-snap7's S7Server (a native addon without types) the tests use. */
type S7ServerApi = {
  LocalPort: number;
  srvAreaDB: number;
  srvAreaMK: number;
  SetParam(param: number, value: number): boolean;
  RegisterArea(area: number, indexOrBuffer: number | Buffer, buffer?: Buffer): boolean;
  SetArea(area: number, indexOrBuffer: number | Buffer, buffer?: Buffer): void;
  StartTo(ip: string, callback: (err: unknown) => void): void;
  Stop(): boolean;
};

const require = createRequire(import.meta.url);

/**
 * A Siemens S7 PLC for tests: snap7's server (node-snap7, built from source by `npm ci`) on
 * 127.0.0.1, with data block 1 and the marker area, big-endian as in a real CPU.
 *
 * One per process: node-snap7's S7Server keeps its libuv handles in static variables, and a
 * process that frees two of them aborts. A test file that starts one runs in a process of its own
 * (ISOLATED in vitest.config.ts); the agent's S7 client has no such handles.
 */
export class Snap7Peer {
  readonly db1: Buffer;
  readonly markers = Buffer.alloc(64);
  port = 0;
  readonly #server: S7ServerApi;

  constructor(db1Bytes = 64) {
    this.db1 = Buffer.alloc(db1Bytes);
    const snap7 = require("node-snap7") as { S7Server: new () => S7ServerApi };
    this.#server = new snap7.S7Server();
    this.#server.RegisterArea(this.#server.srvAreaDB, 1, this.db1);
    this.#server.RegisterArea(this.#server.srvAreaMK, this.markers);
  }

  async start(port?: number): Promise<void> {
    this.port = port ?? (await freePort());
    this.#server.SetParam(this.#server.LocalPort, this.port);
    await new Promise<void>((resolve, reject) =>
      this.#server.StartTo("127.0.0.1", (err) => (err ? reject(new Error(String(err))) : resolve())),
    );
  }

  /** Makes the server see the buffers' current bytes (it keeps its own copy). */
  publish(): void {
    this.#server.SetArea(this.#server.srvAreaDB, 1, this.db1);
    this.#server.SetArea(this.#server.srvAreaMK, this.markers);
  }

  stop(): void {
    this.#server.Stop();
  }
}
