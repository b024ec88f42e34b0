import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type ServerType, serve } from "@hono/node-server";
import { createApp } from "./app.ts";
import type { ServerConfig } from "./config.ts";
import { type DatabaseHandle, openDatabase } from "./db/client.ts";
import { loadKeys } from "./keys.ts";
import type { Logger } from "./logger.ts";
import { type Clock, type ServiceContext, systemClock } from "./services/context.ts";
import { EventBus } from "./services/events.ts";

export type CaudalServerOptions = {
  config: ServerConfig;
  logger: Logger;
  clock?: Clock;
};

/** caudal-server: the constructor only assigns; start() opens the database and ports, stop() closes them. */
export class CaudalServer {
  readonly #options: CaudalServerOptions;
  #database: DatabaseHandle | undefined;
  #http: ServerType | undefined;
  #ctx: ServiceContext | undefined;

  constructor(options: CaudalServerOptions) {
    this.#options = options;
  }

  get context(): ServiceContext {
    if (!this.#ctx) throw new Error("server not started");
    return this.#ctx;
  }

  /** The bound HTTP port (useful with PORT=0). */
  get port(): number {
    const address = this.#http?.address() as AddressInfo | null | undefined;
    if (!address) throw new Error("server not listening");
    return address.port;
  }

  async start(): Promise<void> {
    const { config, logger } = this.#options;
    this.#database = openDatabase(join(config.DATA_DIR, "caudal.db"));
    this.#ctx = {
      db: this.#database.db,
      sqlite: this.#database.sqlite,
      config,
      logger,
      clock: this.#options.clock ?? systemClock,
      keys: loadKeys(config),
      events: new EventBus(),
    };
    const app = createApp({ ctx: this.#ctx });
    await new Promise<void>((resolve, reject) => {
      const server = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, () => resolve());
      server.once("error", reject);
      this.#http = server;
    });
    logger.info("http listening", { host: config.HOST, port: this.port });
  }

  async stop(): Promise<void> {
    const http = this.#http;
    this.#http = undefined;
    if (http) {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        if ("closeAllConnections" in http) http.closeAllConnections();
      });
    }
    this.#database?.close();
    this.#database = undefined;
  }
}
