import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { type AuditVerification, verifyAuditChain } from "../../services/audit/verify-audit.ts";
import type { Store } from "../store.ts";
import type { TablePlan } from "./plan.ts";
import type { WriteLine } from "./progress-lines.ts";
import type { SqliteSource } from "./source.ts";
import type { PostgresTarget } from "./target.ts";
import { compareTelemetrySample, type TelemetrySample } from "./telemetry-sample.ts";

export type TableCount = { table: string; source: number; target: number };

export type Verification = {
  /** True when every check passed; otherwise `problems` says what differs. */
  ok: boolean;
  problems: string[];
  counts: TableCount[];
  audit: AuditVerification;
  /** Stored reports whose bytes and SHA-384 were compared (every one that has bytes). */
  reports: number;
  telemetry: TelemetrySample;
};

async function countRows(plans: readonly TablePlan[], source: SqliteSource, target: PostgresTarget) {
  const counts: TableCount[] = [];
  for (const { name } of plans) {
    const { rows } = await target.pool.query<{ n: string }>(`SELECT count(*) AS n FROM "${name}"`);
    counts.push({ table: name, source: source.count(name), target: Number(rows[0]?.n ?? 0) });
  }
  return counts;
}

/** Every stored report: the same bytes and hash on both sides, and the bytes hash to it. */
async function compareReports(sourceStore: Store, targetStore: Store, problems: string[]): Promise<number> {
  let compared = 0;
  for (const { id } of await sourceStore.reports.list()) {
    const [before, after] = [await sourceStore.reports.report(id), await targetStore.reports.report(id)];
    if (!before?.content) continue;
    compared++;
    if (!after?.content?.equals(before.content) || after.hashSha384 !== before.hashSha384) {
      problems.push(`report ${id}: bytes or hash differ on the target`);
      continue;
    }
    const sha384 = createHash("sha384").update(after.content).digest("hex");
    if (sha384 !== after.hashSha384)
      problems.push(`report ${id}: its bytes do not hash to its stored SHA-384`);
  }
  return compared;
}

/**
 * Checks the copy: row counts per table; the audit chain verifies on the target, as it does on
 * the source (same entries, same head); every stored ANH report's bytes and SHA-384 unchanged;
 * a sample of telemetry reads the same on both sides.
 */
export async function verifyMigration(
  plans: readonly TablePlan[],
  source: SqliteSource,
  sourceStore: Store,
  target: PostgresTarget,
  sampleSeries: number,
  write: WriteLine,
): Promise<Verification> {
  const problems: string[] = [];

  const counts = await countRows(plans, source, target);
  for (const c of counts) {
    if (c.source !== c.target)
      problems.push(`${c.table}: ${c.source} rows on SQLite, ${c.target} on PostgreSQL`);
  }
  const rows = counts.reduce((sum, c) => sum + c.target, 0);
  write(
    `verify: row counts of ${counts.length} tables (${rows.toLocaleString("en-US")} rows) ${problems.length ? "differ" : "equal"}`,
  );

  const audit = await verifyAuditChain({ store: target.store });
  const sourceAudit = await verifyAuditChain({ store: sourceStore });
  if (!audit.valid)
    problems.push(
      `audit chain on the target breaks at seq ${audit.broken_at.seq} (${audit.broken_at.reason})`,
    );
  if (!sourceAudit.valid) {
    problems.push(
      `audit chain on the source breaks at seq ${sourceAudit.broken_at.seq} (${sourceAudit.broken_at.reason})`,
    );
  }
  if (audit.valid && sourceAudit.valid && !isDeepStrictEqual(audit, sourceAudit)) {
    problems.push("audit chain: the target's head differs from the source's");
  }
  write(
    `verify: audit chain of ${audit.entries} entries ${audit.valid ? "verifies" : "does not verify"} on the target`,
  );

  const before = problems.length;
  const reports = await compareReports(sourceStore, target.store, problems);
  write(
    `verify: ${reports} stored ANH reports ${problems.length > before ? "differ" : "have the same bytes and SHA-384"}`,
  );

  const telemetry = await compareTelemetrySample(source, sourceStore, target, sampleSeries, problems);
  write(
    `verify: telemetry sample of ${telemetry.series} series (${telemetry.rawRows} raw rows, ${telemetry.blocks} packed blocks, ` +
      `${telemetry.rollupWindows} rollup days) ${telemetry.equal ? "reads the same" : "differs"}`,
  );

  return { ok: problems.length === 0, problems, counts, audit, reports, telemetry };
}
