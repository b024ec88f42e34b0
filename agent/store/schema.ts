/** The agent's local SQLite schema (node:sqlite). Versioned by PRAGMA user_version. */
export const AGENT_SCHEMA_VERSION = 1;

export const AGENT_SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

-- Store-and-forward queue. seq is assigned from meta.next_seq, never reused: the server
-- deduplicates on (agent_id, seq), so a reused seq would be dropped as a duplicate.
CREATE TABLE IF NOT EXISTS outbox (
  seq INTEGER PRIMARY KEY,
  created_at INTEGER NOT NULL,
  -- 1 while the batch may still take more points (never sent yet)
  open INTEGER NOT NULL DEFAULT 1,
  points INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  oldest_ts INTEGER NOT NULL,
  body TEXT NOT NULL
);

-- The configuration the agent runs: the last one applied, so it polls with no server at all.
CREATE TABLE IF NOT EXISTS applied_config (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  deployment_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  hash TEXT NOT NULL,
  body TEXT NOT NULL,
  applied_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS local_alarms (
  id TEXT PRIMARY KEY,
  rule_id TEXT NOT NULL,
  asset_id TEXT NOT NULL,
  variable TEXT NOT NULL,
  value REAL NOT NULL,
  alarm_type TEXT NOT NULL,
  severity TEXT NOT NULL,
  message TEXT NOT NULL,
  raised_at INTEGER NOT NULL,
  returned_at INTEGER
);

CREATE TABLE IF NOT EXISTS counters (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;
