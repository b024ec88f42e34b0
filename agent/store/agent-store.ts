import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { AgentRuntimeConfig } from "../../shared/mqtt/agent-config.ts";
import { type DropNotice, Outbox } from "./outbox.ts";
import { AGENT_SCHEMA, AGENT_SCHEMA_VERSION } from "./schema.ts";

export type AppliedConfig = {
  deploymentId: string;
  version: number;
  hash: string;
  config: AgentRuntimeConfig;
  appliedAt: number;
};

export type LocalAlarm = {
  id: string;
  rule_id: string;
  asset_id: string;
  variable: string;
  value: number;
  alarm_type: string;
  severity: string;
  message: string;
  raised_at: number;
  returned_at: number | null;
};

/**
 * The agent's durable state in DATA_DIR/agent.db (node:sqlite, WAL, synchronous=FULL: a reading
 * acknowledged by the store survives a power cut, not only a crash).
 */
export class AgentStore {
  readonly #file: string;
  readonly #maxBytes: number;
  readonly #onDrop: (notice: DropNotice) => void;
  #db: DatabaseSync | undefined;
  #outbox: Outbox | undefined;
  #agentId: string | undefined;

  constructor(dataDir: string, options: { maxBytes: number; onDrop: (notice: DropNotice) => void }) {
    this.#file = join(dataDir, "agent.db");
    this.#maxBytes = options.maxBytes;
    this.#onDrop = options.onDrop;
  }

  open(): void {
    mkdirSync(join(this.#file, ".."), { recursive: true });
    const db = new DatabaseSync(this.#file);
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000;");
    const version = (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version;
    if (version > AGENT_SCHEMA_VERSION) {
      db.close();
      throw new Error(`agent.db is schema v${version}, newer than this agent (v${AGENT_SCHEMA_VERSION})`);
    }
    db.exec(AGENT_SCHEMA);
    db.exec(`PRAGMA user_version = ${AGENT_SCHEMA_VERSION}`);
    this.#db = db;
    this.#outbox = new Outbox(db, this.#maxBytes, this.#onDrop);
    this.#outbox.open();
    this.#agentId = this.#meta("agent_id") ?? this.#setMeta("agent_id", randomUUID());
  }

  close(): void {
    this.#db?.close();
    this.#db = undefined;
    this.#outbox = undefined;
  }

  get agentId(): string {
    if (!this.#agentId) throw new Error("store not open");
    return this.#agentId;
  }

  get outbox(): Outbox {
    if (!this.#outbox) throw new Error("store not open");
    return this.#outbox;
  }

  appliedConfig(): AppliedConfig | undefined {
    const row = this.#conn()
      .prepare("SELECT deployment_id, version, hash, body, applied_at FROM applied_config WHERE id = 1")
      .get() as
      | { deployment_id: string; version: number; hash: string; body: string; applied_at: number }
      | undefined;
    if (!row) return undefined;
    return {
      deploymentId: row.deployment_id,
      version: row.version,
      hash: row.hash,
      config: JSON.parse(row.body) as AgentRuntimeConfig,
      appliedAt: row.applied_at,
    };
  }

  /**
   * Which configuration is applied, without parsing it: status and heartbeats ask every few
   * seconds, and the body of a 10,000-tag configuration is megabytes of JSON.
   */
  appliedVersion(): Omit<AppliedConfig, "config"> | undefined {
    const row = this.#conn()
      .prepare("SELECT deployment_id, version, hash, applied_at FROM applied_config WHERE id = 1")
      .get() as { deployment_id: string; version: number; hash: string; applied_at: number } | undefined;
    if (!row) return undefined;
    return {
      deploymentId: row.deployment_id,
      version: row.version,
      hash: row.hash,
      appliedAt: row.applied_at,
    };
  }

  saveAppliedConfig(c: AppliedConfig): void {
    this.#conn()
      .prepare(
        `INSERT INTO applied_config (id, deployment_id, version, hash, body, applied_at) VALUES (1, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET deployment_id = excluded.deployment_id, version = excluded.version,
           hash = excluded.hash, body = excluded.body, applied_at = excluded.applied_at`,
      )
      .run(c.deploymentId, c.version, c.hash, JSON.stringify(c.config), c.appliedAt);
  }

  upsertLocalAlarm(a: LocalAlarm): void {
    this.#conn()
      .prepare(
        `INSERT INTO local_alarms (id, rule_id, asset_id, variable, value, alarm_type, severity, message, raised_at, returned_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET returned_at = excluded.returned_at, value = excluded.value`,
      )
      .run(
        a.id,
        a.rule_id,
        a.asset_id,
        a.variable,
        a.value,
        a.alarm_type,
        a.severity,
        a.message,
        a.raised_at,
        a.returned_at,
      );
  }

  /** Local alarms still active, and those that returned to normal in the last 24 h. */
  localAlarms(now: number): LocalAlarm[] {
    return this.#conn()
      .prepare(
        "SELECT * FROM local_alarms WHERE returned_at IS NULL OR returned_at > ? ORDER BY raised_at DESC LIMIT 1000",
      )
      .all(now - 86_400_000) as LocalAlarm[];
  }

  #conn(): DatabaseSync {
    if (!this.#db) throw new Error("store not open");
    return this.#db;
  }

  #meta(key: string): string | undefined {
    return (
      this.#conn().prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined
    )?.value;
  }

  #setMeta(key: string, value: string): string {
    this.#conn()
      .prepare(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
      )
      .run(key, value);
    return value;
  }
}
