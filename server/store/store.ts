import type { AgentStore } from "./ports/agent-store.ts";
import type { AlarmStore } from "./ports/alarm-store.ts";
import type { AuditStore } from "./ports/audit-store.ts";
import type { BillingStore } from "./ports/billing-store.ts";
import type { FieldStore } from "./ports/field-store.ts";
import type { HmiStore } from "./ports/hmi-store.ts";
import type { IdentityStore } from "./ports/identity-store.ts";
import type { InstallerBuildStore } from "./ports/installer-build-store.ts";
import type { MqttCredentialStore } from "./ports/mqtt-credential-store.ts";
import type { RecordStore } from "./ports/record-store.ts";
import type { ReportStore } from "./ports/report-store.ts";
import type { TelemetryStore } from "./ports/telemetry-store.ts";

/** Which engine holds the data: SQLite in DATA_DIR (the embedded default) or PostgreSQL. */
export type Backend = "sqlite" | "postgres";

/**
 * What services see of storage: one port per aggregate, shaped around what the services ask of
 * it (not one per table). Every method is async, whatever the engine.
 */
export type StorePorts = {
  readonly field: FieldStore;
  readonly audit: AuditStore;
  readonly billing: BillingStore;
  readonly telemetry: TelemetryStore;
  readonly alarms: AlarmStore;
  readonly reports: ReportStore;
  readonly identity: IdentityStore;
  readonly mqttCredentials: MqttCredentialStore;
  readonly installerBuilds: InstallerBuildStore;
  readonly records: RecordStore;
  readonly agents: AgentStore;
  readonly hmi: HmiStore;
};

export type TransactionOptions = {
  /**
   * Every read of the work sees one snapshot: what was committed when the transaction began, and
   * its own writes (a report reads many tables and must not mix two states of the data). SQLite's
   * transactions always do. On PostgreSQL the transaction runs at REPEATABLE READ; when it cannot
   * commit because a concurrent one changed or inserted what it read or locks (a serialization
   * failure, a deadlock, a unique violation), the work runs again from the start, in a new
   * transaction, a few times. Work asked for a snapshot must therefore be safe to run again: it
   * only uses its ports, and keeps what it computes in what it returns.
   */
  snapshot?: boolean;
};

/** The storage seam (issue 14): services talk to these ports, never to a database handle. */
export type Store = StorePorts & {
  readonly backend: Backend;
  /**
   * Runs `work` in one transaction: everything it wrote lands, or nothing does. `work` uses the
   * ports it is handed (`tx`), never the store's own, and awaits nothing but them: a transaction
   * is held open, and other writers wait, until `work` settles.
   */
  transaction<T>(work: (tx: StorePorts) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** A real round trip to the database (GET /health): resolves when it answered, throws otherwise. */
  probe(): Promise<void>;
  /** Lets go of what the store holds (a pool's connections); the store is not used after. */
  close(): Promise<void>;
};
