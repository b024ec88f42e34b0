import type { Store, StorePorts, TransactionOptions } from "../store.ts";
import { SqliteAgentStore } from "./agent-store.ts";
import { SqliteAlarmStore } from "./alarm-store.ts";
import { SqliteAuditStore } from "./audit-store.ts";
import { SqliteBillingStore } from "./billing-store.ts";
import type { Db, Sqlite } from "./client.ts";
import { SqliteFieldStore } from "./field-store.ts";
import { SqliteHmiStore } from "./hmi-store.ts";
import { SqliteIdentityStore } from "./identity-store.ts";
import { SqliteInstallerBuildStore } from "./installer-build-store.ts";
import { SqliteMqttCredentialStore } from "./mqtt-credential-store.ts";
import { probeDatabase } from "./probe-database.ts";
import { SqliteRecordStore } from "./record-store.ts";
import { SqliteReportStore } from "./report-store.ts";
import type { SqliteSession } from "./session.ts";
import { SqliteTelemetryStore } from "./telemetry-store.ts";
import { TransactionGate } from "./transaction-gate.ts";

/**
 * The embedded backend: one SQLite connection (better-sqlite3, synchronous) behind async ports.
 * A port call outside a transaction runs at once; a transaction runs its work between
 * BEGIN IMMEDIATE and COMMIT while the gate holds everyone else's calls back.
 */
export class SqliteStore implements Store {
  readonly backend = "sqlite";
  readonly field: SqliteFieldStore;
  readonly audit: SqliteAuditStore;
  readonly billing: SqliteBillingStore;
  readonly telemetry: SqliteTelemetryStore;
  readonly alarms: SqliteAlarmStore;
  readonly reports: SqliteReportStore;
  readonly identity: SqliteIdentityStore;
  readonly mqttCredentials: SqliteMqttCredentialStore;
  readonly installerBuilds: SqliteInstallerBuildStore;
  readonly records: SqliteRecordStore;
  readonly agents: SqliteAgentStore;
  readonly hmi: SqliteHmiStore;
  readonly #session: SqliteSession;
  readonly #steps: { begin(): void; commit(): void; rollback(): void };

  constructor(handle: { db: Db; sqlite: Sqlite }) {
    const { sqlite } = handle;
    this.#session = { db: handle.db, sqlite, gate: new TransactionGate() };
    const begin = sqlite.prepare("BEGIN IMMEDIATE");
    const commit = sqlite.prepare("COMMIT");
    const rollback = sqlite.prepare("ROLLBACK");
    // The agent batches a transaction claimed are written just before its COMMIT (batch-ledger.ts).
    this.#steps = {
      begin: () => begin.run(),
      commit: () => {
        this.agents.beforeCommit();
        commit.run();
        this.agents.committed();
      },
      // A failed COMMIT may have ended the transaction already (SQLite rolls back on some errors).
      rollback: () => {
        this.agents.rolledBack();
        if (sqlite.inTransaction) rollback.run();
      },
    };
    this.field = new SqliteFieldStore(this.#session);
    this.audit = new SqliteAuditStore(this.#session);
    this.billing = new SqliteBillingStore(this.#session);
    this.telemetry = new SqliteTelemetryStore(this.#session, (work) => this.transaction(work));
    this.alarms = new SqliteAlarmStore(this.#session);
    this.reports = new SqliteReportStore(this.#session);
    this.identity = new SqliteIdentityStore(this.#session);
    this.mqttCredentials = new SqliteMqttCredentialStore(this.#session);
    this.installerBuilds = new SqliteInstallerBuildStore(this.#session);
    this.records = new SqliteRecordStore(this.#session);
    this.agents = new SqliteAgentStore(this.#session);
    this.hmi = new SqliteHmiStore(this.#session);
  }

  /** `options.snapshot` changes nothing here: one connection, one writer, one snapshot per transaction. */
  transaction<T>(work: (tx: StorePorts) => Promise<T>, _options?: TransactionOptions): Promise<T> {
    return this.#session.gate.transaction(
      this.#steps,
      // On one connection the transaction's ports are the store's own: the gate knows the caller.
      () => work(this),
    );
  }

  /**
   * Test support only (server/testing/table-probe.ts): the connection, for tests that look at or
   * tamper with rows no port exposes, and for the SQLite adapter's own properties. Never product code.
   */
  get connection(): Sqlite {
    return this.#session.sqlite;
  }

  probe(): Promise<void> {
    return this.#session.gate.run(() => probeDatabase(this.#session.sqlite));
  }

  /** Nothing to do: the store does not own the connection; whoever opened it closes it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
