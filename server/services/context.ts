import type { Registry } from "prom-client";
import type { ServerConfig } from "../config.ts";
import type { Logger } from "../logger.ts";
import type { Store } from "../store/store.ts";
import type { EventBus } from "./events.ts";

export type Clock = {
  now(): Date;
  /**
   * This clock's offset from the system clock in ms, in shared memory, so that HTTP worker
   * threads keep the same time (tests move it). Absent: the system clock itself.
   */
  readonly offsetMs?: BigInt64Array;
};
export const systemClock: Clock = { now: () => new Date() };

/** A clock that follows another thread's, through its shared offset (see Clock.offsetMs). */
export function sharedOffsetClock(offsetMs: BigInt64Array | undefined): Clock {
  if (!offsetMs) return systemClock;
  return { now: () => new Date(Date.now() + Number(Atomics.load(offsetMs, 0))) };
}

export type Keys = {
  /** HS256 key for access tokens. */
  jwt: Uint8Array;
  /** AES-256-GCM key for TOTP secrets (TOTP_SECRET_ENCRYPTION_KEY). */
  totp: Buffer;
};

/** Everything a service needs; built once at start-up and passed down. */
export type ServiceContext = {
  /** Storage: the ports services talk to (server/store/store.ts). */
  store: Store;
  config: ServerConfig;
  logger: Logger;
  clock: Clock;
  keys: Keys;
  events: EventBus;
  /** This server's Prometheus registry (GET /metrics); features register their own metrics on it. */
  metrics: Registry;
};
