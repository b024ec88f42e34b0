import { AsyncLocalStorage } from "node:async_hooks";
import { drizzle } from "drizzle-orm/node-postgres";
import type { PoolClient } from "pg";
import type { Store, StorePorts, TransactionOptions } from "../store.ts";
import { PostgresAgentStore } from "./agent-store.ts";
import { PostgresAlarmStore } from "./alarm-store.ts";
import { PostgresAuditStore } from "./audit-store.ts";
import { PostgresBillingStore } from "./billing-store.ts";
import { openPostgres, type PgDb, type PoolOptions, type PostgresHandle } from "./client.ts";
import { PostgresFieldStore } from "./field-store.ts";
import { PostgresHmiStore } from "./hmi-store.ts";
import { PostgresIdentityStore } from "./identity-store.ts";
import { PostgresInstallerBuildStore } from "./installer-build-store.ts";
import { PostgresMqttCredentialStore } from "./mqtt-credential-store.ts";
import { PostgresRecordStore } from "./record-store.ts";
import { PostgresReportStore } from "./report-store.ts";
import * as schema from "./schema/index.ts";
import type { PgExecutor, PgSession } from "./session.ts";
import { clientQuery, type Query } from "./telemetry/query.ts";
import { PgTelemetryWriter } from "./telemetry/writer.ts";
import { PostgresTelemetryStore, type TelemetryEngine } from "./telemetry-store.ts";

/** How many times snapshot work runs before a serialization failure is passed on. */
const SNAPSHOT_ATTEMPTS = 5;

/**
 * Why snapshot work is run again: a serialization failure (40001) or a deadlock (40P01), and a
 * unique violation (23505), which at REPEATABLE READ is how a row inserted by a transaction that
 * committed after the snapshot shows (two reports numbered from the same latest version). Each
 * rolled the transaction back; the same work, on a new snapshot, may succeed. A violation the
 * snapshot could see fails every attempt and is passed on. drizzle wraps the driver's error, so
 * its causes are read too.
 */
const RETRYABLE = new Set(["40001", "40P01", "23505"]);

function isRetryable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && RETRYABLE.has(code)) return true;
  }
  return false;
}

/** A transaction while its work runs; `ended` once the work settled (commit or rollback follows). */
type OpenTransaction = { readonly tx: PgExecutor; ended: boolean };

/** drizzle over one pooled connection, made once per connection (a pool reuses its clients). */
const clientDbs = new WeakMap<PoolClient, PgDb>();
function drizzleOn(client: PoolClient): PgDb {
  let db = clientDbs.get(client);
  if (!db) {
    db = drizzle(client, { schema });
    clientDbs.set(client, db);
  }
  return db;
}

function portsOn(session: PgSession, rollups: TelemetryEngine): StorePorts {
  return {
    field: new PostgresFieldStore(session),
    audit: new PostgresAuditStore(session),
    billing: new PostgresBillingStore(session),
    telemetry: new PostgresTelemetryStore(session, rollups),
    alarms: new PostgresAlarmStore(session),
    reports: new PostgresReportStore(session),
    identity: new PostgresIdentityStore(session),
    mqttCredentials: new PostgresMqttCredentialStore(session),
    installerBuilds: new PostgresInstallerBuildStore(session),
    records: new PostgresRecordStore(session),
    hmi: new PostgresHmiStore(session),
    agents: new PostgresAgentStore(session),
  };
}

/**
 * The scale-out backend (issue 14): a pg pool with drizzle. A port call outside a transaction
 * takes any free connection; a transaction holds one connection from BEGIN to COMMIT, and its
 * work's ports run on it. Calls on the store's own ports from inside that work run in the
 * transaction too, as on SQLite's one connection: on another connection they would escape it,
 * or wait forever on a row it has locked (the audit head).
 */
export class PostgresStore implements Store {
  readonly backend = "postgres";
  readonly field: PostgresFieldStore;
  readonly audit: PostgresAuditStore;
  readonly billing: PostgresBillingStore;
  readonly telemetry: PostgresTelemetryStore;
  readonly alarms: PostgresAlarmStore;
  readonly reports: PostgresReportStore;
  readonly identity: PostgresIdentityStore;
  readonly mqttCredentials: PostgresMqttCredentialStore;
  readonly installerBuilds: PostgresInstallerBuildStore;
  readonly records: PostgresRecordStore;
  readonly hmi: PostgresHmiStore;
  readonly agents: PostgresAgentStore;
  readonly #handle: PostgresHandle;
  readonly #open = new AsyncLocalStorage<OpenTransaction>();
  readonly #rollups: TelemetryEngine;

  /** Takes over `handle`: close() ends its pool. */
  constructor(handle: PostgresHandle) {
    this.#handle = handle;
    this.#rollups = {
      pool: handle.pool,
      writer: new PgTelemetryWriter(handle.pool, (work) => this.#onClient(work)),
    };
    const current = () => {
      const open = this.#open.getStore();
      return open && !open.ended ? open : undefined;
    };
    const session: PgSession = {
      executor: () => current()?.tx ?? handle.db,
      inTransaction: () => current() !== undefined,
    };
    this.field = new PostgresFieldStore(session);
    this.audit = new PostgresAuditStore(session);
    this.billing = new PostgresBillingStore(session);
    this.telemetry = new PostgresTelemetryStore(session, this.#rollups);
    this.alarms = new PostgresAlarmStore(session);
    this.reports = new PostgresReportStore(session);
    this.identity = new PostgresIdentityStore(session);
    this.mqttCredentials = new PostgresMqttCredentialStore(session);
    this.installerBuilds = new PostgresInstallerBuildStore(session);
    this.records = new PostgresRecordStore(session);
    this.hmi = new PostgresHmiStore(session);
    this.agents = new PostgresAgentStore(session);
  }

  /** Opens a pool on `url`, applies pending migrations, and serves the store from it. */
  static async open(url: string, options: PoolOptions = {}): Promise<PostgresStore> {
    return new PostgresStore(await openPostgres(url, options));
  }

  async transaction<T>(work: (tx: StorePorts) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    if (this.#open.getStore()?.ended === false) {
      throw new Error("a transaction is already open here: use the ports it handed you");
    }
    if (!options.snapshot) return this.#run(work);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#run(work, "repeatable read");
      } catch (err) {
        if (attempt >= SNAPSHOT_ATTEMPTS || !isRetryable(err)) throw err;
      }
    }
  }

  #run<T>(work: (tx: StorePorts) => Promise<T>, isolationLevel?: "repeatable read"): Promise<T> {
    return this.#handle.db.transaction(
      async (tx) => {
        const open: OpenTransaction = { tx, ended: false };
        try {
          return await this.#open.run(open, () =>
            work(portsOn({ executor: () => tx, inTransaction: () => true }, this.#rollups)),
          );
        } finally {
          open.ended = true;
        }
      },
      isolationLevel ? { isolationLevel } : undefined,
    );
  }

  /**
   * Test support only (server/testing/table-probe.ts): the pool, for tests that look at or tamper
   * with rows no port exposes. Statements on it run outside any open store transaction. Never product code.
   */
  get pool(): PostgresHandle["pool"] {
    return this.#handle.pool;
  }

  /**
   * A transaction on one connection of the pool, for the telemetry writer: `work` gets plain SQL
   * on it (bulk statements over arrays) and the store's ports bound to it (a batch's claim and
   * complete), and the store's own ports called meanwhile run in it too, as in transaction().
   */
  async #onClient<T>(work: (query: Query, ports: StorePorts) => Promise<T>): Promise<T> {
    if (this.#open.getStore()?.ended === false) {
      throw new Error("a transaction is already open here: use the ports it handed you");
    }
    const client = await this.#handle.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      const db = drizzleOn(client);
      const open: OpenTransaction = { tx: db, ended: false };
      let result: T;
      try {
        result = await this.#open.run(open, () =>
          work(
            clientQuery(client),
            portsOn({ executor: () => db, inTransaction: () => true }, this.#rollups),
          ),
        );
      } catch (err) {
        open.ended = true;
        await client.query("ROLLBACK").catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw err;
      }
      open.ended = true;
      await client.query("COMMIT");
      return result;
    } finally {
      client.release(broken);
    }
  }

  /** A round trip that reads the users table (its heap, not just the catalog), as on SQLite. */
  async probe(): Promise<void> {
    await this.#handle.pool.query("SELECT 1 FROM users LIMIT 1");
  }

  /** Stops the telemetry writer if it runs (its LISTEN connection is not the pool's), then ends the pool. */
  async close(): Promise<void> {
    await this.telemetry.stop();
    await this.#handle.close();
  }
}
