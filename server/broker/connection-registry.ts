import type { Duplex } from "node:stream";
import type { Client } from "aedes";
import { type Principal, principalOf } from "./principal.ts";
import { filterMatches } from "./topic-filter.ts";

/** Connection limits (issue 8 §2, Low). Only maxPacketBytes is configuration (MQTT_MAX_PACKET_BYTES). */
export type BrokerLimits = {
  /** Largest inbound packet, fixed header included; a larger one closes the connection. */
  maxPacketBytes: number;
  /** Sockets that have not authenticated yet (no CONNECT, or CONNECT being checked); more are closed at once. */
  maxPendingConnections: number;
  /** How long a socket may stay before its CONNECT arrives. */
  connectTimeoutMs: number;
  /** Simultaneous connections of one person or one HMI credential; agents have one per project. */
  maxConnectionsPerUser: number;
};

export const DEFAULT_BROKER_LIMITS: Omit<BrokerLimits, "maxPacketBytes"> = {
  maxPendingConnections: 64,
  connectTimeoutMs: 10_000,
  maxConnectionsPerUser: 10,
};

/** Topics whose audience is remembered at most; past it the memory starts again. */
const MAX_AUDIENCES = 10_000;

/**
 * Who is connected: sockets still waiting to authenticate, then each authenticated client with the
 * subscriptions it was granted (so they can be re-checked when its user's access changes, and so
 * the broker knows who a topic reaches) and, for a person, the timer that ends the connection at
 * the access token's expiry.
 */
export class ConnectionRegistry {
  readonly #limits: BrokerLimits;
  readonly #pending = new Set<Duplex>();
  readonly #clients = new Set<Client>();
  readonly #filters = new Map<Client, Set<string>>();
  /**
   * The filters of persistent sessions (clean = false) whose connection closed, by client id:
   * aedes keeps their subscriptions and queues messages for them until the id connects cleanly.
   */
  readonly #offline = new Map<string, Set<string>>();
  /** audience() by topic, until a filter comes or goes. */
  readonly #audiences = new Map<string, ReadonlySet<string>>();
  readonly #expiry = new Map<Client, NodeJS.Timeout>();
  /** Agent connections replaced by a newer one: their last will is not published (the agent is online). */
  readonly #superseded = new WeakSet<Client>();

  constructor(limits: BrokerLimits) {
    this.#limits = limits;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  /** A new socket; false when too many are already waiting to authenticate. */
  admit(stream: Duplex): boolean {
    if (this.#pending.size >= this.#limits.maxPendingConnections) return false;
    this.#pending.add(stream);
    stream.once("close", () => this.#pending.delete(stream));
    return true;
  }

  /** True while the client's socket is open; false if it went away during authentication. */
  authenticated(client: Client): boolean {
    const conn = client.conn;
    if (client.closed || conn.destroyed) return false;
    this.#pending.delete(conn);
    this.#clients.add(client);
    // A clean session ends the persistent one of the same id: aedes drops its subscriptions.
    if (client.clean && this.#offline.delete(client.id)) this.#audiences.clear();
    conn.once("close", () => this.#forget(client));
    return true;
  }

  /** Authenticated clients, in connection order. */
  clients(): Client[] {
    return [...this.#clients];
  }

  /** Open connections of one person. */
  userConnections(userId: string): number {
    let n = 0;
    for (const c of this.#clients) {
      const p = principalOf(c);
      if (p?.kind === "user" && p.auth.userId === userId) n++;
    }
    return n;
  }

  /** Open connections of one HMI credential. */
  hmiConnections(credentialId: string): number {
    let n = 0;
    for (const c of this.#clients) {
      const p = principalOf(c);
      if (p?.kind === "hmi" && p.credentialId === credentialId) n++;
    }
    return n;
  }

  /** Other connections of the agent of `projectId`, which a new one replaces. */
  agentConnections(projectId: string, except: Client): Client[] {
    return [...this.#clients].filter((c) => {
      const p: Principal | undefined = principalOf(c);
      return c !== except && p?.kind === "agent" && p.projectId === projectId;
    });
  }

  supersede(client: Client): void {
    this.#superseded.add(client);
  }

  isSuperseded(client: Client): boolean {
    return this.#superseded.has(client);
  }

  granted(client: Client, filter: string): void {
    if (!this.#clients.has(client)) return;
    let filters = this.#filters.get(client);
    if (!filters) {
      filters = new Set();
      this.#filters.set(client, filters);
    }
    filters.add(filter);
    this.#audiences.clear();
  }

  unsubscribed(client: Client, filters: readonly string[]): void {
    const held = this.#filters.get(client);
    for (const f of filters) held?.delete(f);
    this.#audiences.clear();
  }

  /**
   * The ids of the clients a message on `topic` may reach: those granted a filter that matches it,
   * connected or in a persistent session. A superset of the clients it is delivered to (a filter is
   * counted from the moment it is granted, and a persistent session's until the id connects
   * cleanly; the broker does not register an HMI's filters, which never deliver a caudal/v1 topic);
   * the broker delivers a message itself only where this leaves no one else (broker.ts).
   */
  audience(topic: string): ReadonlySet<string> {
    let ids = this.#audiences.get(topic);
    if (ids) return ids;
    const found = new Set<string>();
    for (const [client, filters] of this.#filters) if (anyMatches(filters, topic)) found.add(client.id);
    for (const [id, filters] of this.#offline) if (anyMatches(filters, topic)) found.add(id);
    if (this.#audiences.size >= MAX_AUDIENCES) this.#audiences.clear();
    ids = found;
    this.#audiences.set(topic, ids);
    return ids;
  }

  grantedFilters(client: Client): string[] {
    return [...(this.#filters.get(client) ?? [])];
  }

  /** Calls `expire` at `atMs` by `now()`, re-arming if the wall-clock timer fires early. */
  expireAt(client: Client, atMs: number, now: () => number, expire: () => void): void {
    clearTimeout(this.#expiry.get(client));
    const delay = Math.max(0, Math.min(atMs - now(), 2 ** 31 - 1));
    const timer = setTimeout(() => {
      this.#expiry.delete(client);
      if (now() >= atMs) expire();
      else this.expireAt(client, atMs, now, expire);
    }, delay).unref();
    this.#expiry.set(client, timer);
  }

  /** Every socket, authenticated or not (for stop()). */
  closeAll(): void {
    for (const stream of this.#pending) stream.destroy();
    for (const client of this.#clients) client.close();
  }

  #forget(client: Client): void {
    this.#clients.delete(client);
    const filters = this.#filters.get(client);
    if (filters && filters.size > 0 && !client.clean) this.#offline.set(client.id, filters);
    this.#filters.delete(client);
    this.#audiences.clear();
    clearTimeout(this.#expiry.get(client));
    this.#expiry.delete(client);
  }
}

function anyMatches(filters: ReadonlySet<string>, topic: string): boolean {
  for (const f of filters) if (filterMatches(f, topic)) return true;
  return false;
}
