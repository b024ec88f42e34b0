import type {
  AgentLogRow,
  AgentStatusRow,
  AlertRuleRow,
  DeploymentRow,
  DeviceRow,
  EnrollmentCodeRow,
  NewAgentLogRow,
  NewDeploymentRow,
  NewEnrollmentCodeRow,
  ProjectRow,
  VariableRow,
} from "../rows.ts";

/**
 * What a project's agent configuration is made of, in the order the configuration lists it (its
 * content hash depends on that order). Ids compare as bytes (ASCII).
 */
export type AgentConfigSource = {
  /** The enabled devices of the project's assets, by created_at then id. */
  devices: DeviceRow[];
  /** The enabled variables of those devices, by created_at then id. */
  variables: VariableRow[];
  /** The project's enabled alert rules, by created_at then id. */
  alertRules: AlertRuleRow[];
};

/**
 * A project's edge agent: its token and enrollment codes (stored as SHA-256 hex only, never the
 * secret), its deployments, its reported status and health, and its logs. Instants are Dates
 * (epoch milliseconds); ids compare as bytes (ASCII) wherever they break a tie.
 *
 * The dedupe record of an agent's telemetry batch (recordBatch) is written inside the telemetry
 * write that stores the batch's points (services/agents/receive-batch.ts).
 */
export type AgentStore = {
  /**
   * The SHA-256 hex of the project's current agent token: null before one is issued, undefined
   * when there is no such project.
   */
  tokenHash(projectId: string): Promise<string | null | undefined>;
  /** Replaces the project's token hash and sets its updated_at to `at`. Nothing when there is no such project. */
  setTokenHash(projectId: string, hash: string, at: Date): Promise<void>;

  /** Stores a new code (its code_hash is unique: a clash fails, and the transaction with it). */
  insertEnrollmentCode(row: NewEnrollmentCodeRow): Promise<void>;
  /** The project's codes, newest first: created_at descending, then id descending. */
  enrollmentCodesOf(projectId: string): Promise<EnrollmentCodeRow[]>;
  /** The code with this id; undefined when there is none (or its project was deleted). */
  enrollmentCode(id: string): Promise<EnrollmentCodeRow | undefined>;
  /** The code whose SHA-256 hex is `codeHash`; undefined when none was issued. */
  enrollmentCodeByHash(codeHash: string): Promise<EnrollmentCodeRow | undefined>;
  /**
   * Marks the code used at `at` if it is neither used nor revoked (expiry is the caller's rule);
   * true when this call marked it. Of concurrent transactions claiming one code exactly one gets
   * true: the condition is checked and the row written in one statement, and a second writer
   * re-checks it after the first commits (PostgreSQL: one conditional UPDATE, row-locked).
   */
  claimEnrollmentCode(id: string, at: Date): Promise<boolean>;
  /** Sets revoked_at to `at` unless the code is already revoked; true when this call revoked it. */
  revokeEnrollmentCode(id: string, at: Date): Promise<boolean>;

  /**
   * Whether the project takes automatic deployments; undefined when there is no such project.
   * Called in a transaction, it also holds off other transactions' deployments of the project
   * until this one ends, so the version latestDeployment reads next is still the newest when the
   * next one is inserted (PostgreSQL: the project row is read FOR UPDATE; SQLite's transactions
   * are serial already).
   */
  deploymentTarget(projectId: string): Promise<{ autoDeploy: boolean } | undefined>;
  /** The ids of the projects with auto_deploy on, in no particular order. */
  autoDeployProjectIds(): Promise<string[]>;
  /** The rows the project's agent configuration is built from (see AgentConfigSource). */
  configSource(projectId: string): Promise<AgentConfigSource>;
  /** The enabled variables of these devices, by created_at then id (none when `deviceIds` is empty). */
  enabledVariables(deviceIds: readonly string[]): Promise<VariableRow[]>;
  /** The project's deployment with the highest version; undefined before its first. */
  latestDeployment(projectId: string): Promise<DeploymentRow | undefined>;
  /** Every project's deployment with the highest version, one per project that has any, in no particular order. */
  latestDeployments(): Promise<DeploymentRow[]>;
  /** The project's deployments, highest version first. */
  deploymentsOf(projectId: string): Promise<DeploymentRow[]>;
  /** The deployment when it is the project's; undefined otherwise. */
  deploymentOf(projectId: string, id: string): Promise<DeploymentRow | undefined>;
  insertDeployment(row: NewDeploymentRow): Promise<DeploymentRow>;
  /** Sets the deployment's status, error and updated_at. Nothing when there is no such deployment. */
  setDeploymentStatus(
    id: string,
    status: DeploymentRow["status"],
    error: string | null,
    at: Date,
  ): Promise<void>;
  /**
   * Fails the project's pending deployments with a version below `version` (an applied version
   * supersedes them): status failed, this error, updated_at `at`.
   */
  failPendingBefore(projectId: string, version: number, error: string, at: Date): Promise<void>;

  /** The agent's last reported status; undefined when it never reported. */
  status(projectId: string): Promise<AgentStatusRow | undefined>;
  /** A heartbeat: last_seen `at`, this heartbeat, offline_at cleared (the row is made if missing). */
  markSeen(projectId: string, at: Date, heartbeat: AgentStatusRow["heartbeat"]): Promise<void>;
  /**
   * The agent said it is online: last_seen `at`, offline_at cleared, its last heartbeat kept
   * (the row is made, with no heartbeat, if missing).
   */
  markOnline(projectId: string, at: Date): Promise<void>;
  /** The agent went offline at `at` (a clean stop or its last will). Nothing when it never reported. */
  markOffline(projectId: string, at: Date): Promise<void>;
  /** Keeps the agent's latest health report on its project. Nothing when there is no such project. */
  setHealthReport(projectId: string, report: ProjectRow["lastHealthReport"]): Promise<void>;

  /**
   * Records that the agent's batch `seq` (of `points` readings) was received at `receivedAt`: true
   * when it is new, false (writing nothing) when that project, agent and seq were recorded before.
   * The record commits or rolls back with the caller's transaction. Rows are runs (seq to
   * last_seq): SQLite writes one row per run of consecutive new seqs a transaction claims, and
   * extends the run before it (store/sqlite/batch-ledger.ts); PostgreSQL one row a batch. Hot path.
   */
  recordBatch(
    projectId: string,
    agentId: string,
    seq: number,
    points: number,
    receivedAt: Date,
  ): Promise<boolean>;

  /**
   * Deletes up to `limit` batch records (runs) whose last batch was received before `before`, and
   * says how many it deleted (fewer than `limit`: none of those left is that old). A record only lets a
   * resent batch be answered as a duplicate; without it, each of the batch's readings is still
   * stored once (the writer skips a series' stored milliseconds) and its alarm transitions are
   * kept by id, so deleting old records bounds the table and loses no exactness.
   */
  deleteBatchRecordsBefore(before: Date, limit: number): Promise<number>;

  /** Appends the entries, all of them or (on failure) none. */
  appendLogs(rows: readonly NewAgentLogRow[]): Promise<void>;
  /**
   * The project's entries at one of `levels`, newest first: timestamp descending, then created_at
   * descending (entries equal in both in no particular order); at most `limit`.
   */
  logsOf(projectId: string, levels: readonly AgentLogRow["level"][], limit: number): Promise<AgentLogRow[]>;
};
