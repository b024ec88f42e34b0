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

/** The storage seam (issue 14): services talk to these ports, never to a database handle. */
export type Store = StorePorts & {
  readonly backend: Backend;
  /**
   * Runs `work` in one transaction: everything it wrote lands, or nothing does. `work` uses the
   * ports it is handed (`tx`), never the store's own, and awaits nothing but them: a transaction
   * is held open, and other writers wait, until `work` settles.
   */
  transaction<T>(work: (tx: StorePorts) => Promise<T>): Promise<T>;
  /** A real round trip to the database (GET /health): resolves when it answered, throws otherwise. */
  probe(): Promise<void>;
  /** Lets go of what the store holds (a pool's connections); the store is not used after. */
  close(): Promise<void>;
};
