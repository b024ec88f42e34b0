import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Transform } from "node:stream";

/**
 * An HTTP proxy in front of a server that flips one byte of every binary (application/octet-stream)
 * body it relays, as a broken cache or a tampering middlebox would; everything else passes as is.
 * It keeps the Host header, so the server sees the proxy's address as the URL it was reached on.
 */
export class CorruptingProxy {
  readonly #target: number;
  readonly #offset: number;
  #server: Server | undefined;

  constructor(targetPort: number, offset = 1_000_000) {
    this.#target = targetPort;
    this.#offset = offset;
  }

  get url(): string {
    const address = this.#server?.address() as AddressInfo | null | undefined;
    if (!address) throw new Error("proxy not started");
    return `http://127.0.0.1:${address.port}`;
  }

  async start(): Promise<void> {
    const offset = this.#offset;
    this.#server = createServer((req, res) => {
      const upstream = request(
        { host: "127.0.0.1", port: this.#target, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          if (answer.headers["content-type"] !== "application/octet-stream") {
            answer.pipe(res);
            return;
          }
          let seen = 0;
          const flip = new Transform({
            transform(chunk: Buffer, _encoding, done) {
              if (seen <= offset && offset < seen + chunk.length)
                chunk.writeUInt8(chunk.readUInt8(offset - seen) ^ 0xff, offset - seen);
              seen += chunk.length;
              done(null, chunk);
            },
          });
          answer.pipe(flip).pipe(res);
        },
      );
      upstream.on("error", () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, "127.0.0.1", resolve));
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
