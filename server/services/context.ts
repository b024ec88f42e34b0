import type { Registry } from "prom-client";
import type { ServerConfig } from "../config.ts";
import type { Db, Sqlite } from "../db/client.ts";
import type { Logger } from "../logger.ts";
import type { EventBus } from "./events.ts";

export type Clock = { now(): Date };
export const systemClock: Clock = { now: () => new Date() };

export type Keys = {
  /** HS256 key for access tokens. */
  jwt: Uint8Array;
  /** AES-256-GCM key for TOTP secrets (TOTP_SECRET_ENCRYPTION_KEY). */
  totp: Buffer;
};

/** Everything a service needs; built once at start-up and passed down. */
export type ServiceContext = {
  db: Db;
  sqlite: Sqlite;
  config: ServerConfig;
  logger: Logger;
  clock: Clock;
  keys: Keys;
  events: EventBus;
  /** This server's Prometheus registry (GET /metrics); features register their own metrics on it. */
  metrics: Registry;
};
