import { createHash, randomUUID } from "node:crypto";
import { canonicalBytes, JcsError } from "../../../shared/jcs.ts";
import { AppError, notFound } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import { buildReportContent } from "./build-content.ts";
import type { AnhReportContent } from "./content-schema.ts";
import { type ProductionDay, productionDay } from "./production-day.ts";
import { auditView, type ReportRow } from "./report-dto.ts";
import { nextVersion } from "./report-version.ts";

export type GenerateRequest = {
  projectId: string;
  reportDate: string;
  trigger: "scheduler" | "on_demand";
  /** The user who asked; null for the scheduler. */
  requestedBy: string | null;
};

/** SHA-384 of exactly the stored bytes, lower-case hex (what `sha384sum` prints). */
export function sha384Hex(bytes: Uint8Array): string {
  return createHash("sha384").update(bytes).digest("hex");
}

/** The production day of a project, or 409 when its time zone is unknown to the runtime. */
export function projectDay(project: { timezone: string }, date: string): ProductionDay {
  try {
    return productionDay(date, project.timezone);
  } catch (err) {
    if (err instanceof RangeError) {
      throw new AppError("Conflict", `the project's time zone ${project.timezone} is not a known IANA zone`);
    }
    throw err;
  }
}

/**
 * The canonical bytes of the content (RFC 8785). A figure I-JSON cannot carry — a day's sum of
 * readings that overflows a double to Infinity — is the data's fault, not the server's: a 409
 * naming the figure, and the transaction writes nothing.
 */
export function reportBytes(content: unknown, date: string): Buffer {
  try {
    return canonicalBytes(content);
  } catch (err) {
    if (!(err instanceof JcsError)) throw err;
    throw new AppError(
      "Conflict",
      `the report of ${date} cannot be generated: ${err.message} (a value or a sum of values exceeds ` +
        "the range of a double); correct the day's data and generate it again",
    );
  }
}

/**
 * A day with no reading, record or alarm in it. Before the project existed such a day has nothing to
 * report (the daily job never opens one); a backfilled history makes the day hold something.
 */
function holdsNothing(content: AnhReportContent): boolean {
  return (
    content.telemetry.samples_received === 0 &&
    content.movements.count === 0 &&
    content.downtime.count === 0 &&
    content.well_tests.count === 0 &&
    content.lab_results.count === 0 &&
    content.meter_readings.count === 0 &&
    content.alarms.count === 0
  );
}

/**
 * Generates the project's report for a closed production day, all in one transaction:
 * - a pending row for the day (made by the scheduler at day close) is filled in;
 * - otherwise a new version is added (version + 1, `supersedes` = the day's latest version),
 *   so a generated report's bytes never change and a correction leaves the old bytes in place.
 * The content is canonicalised (RFC 8785) and hashed (SHA-384) over exactly the stored bytes;
 * it names the hash of the project's previously generated report, forming a chain.
 * A day that ended before the project was created, and holds nothing, is refused (409).
 */
export async function generateReport(ctx: ServiceContext, req: GenerateRequest): Promise<ReportRow> {
  const project = await ctx.store.field.project(req.projectId);
  if (!project) throw notFound("project");
  const day = projectDay(project, req.reportDate);
  const now = ctx.clock.now();
  if (now.getTime() < day.endMs) {
    throw new AppError(
      "Conflict",
      `the production day ${req.reportDate} (${project.timezone}) has not closed yet; it closes at ` +
        new Date(day.endMs).toISOString(),
    );
  }

  // Live readings reach the rollups a moment after their commit: a report generated in between
  // would seal a day without its latest readings (an on-demand re-generation after a late upload).
  await ctx.store.telemetry.settleRollups(project.id);

  // One snapshot for every section and the version numbering, taken once the generations before
  // this one have committed (ReportStore.serializeGenerations); run again if a concurrent audited
  // write committed first (Store.transaction).
  return ctx.store.transaction(
    async (tx) => {
      await tx.reports.serializeGenerations();
      const {
        pending: fillPending,
        version,
        supersedes,
        previousHash,
      } = await nextVersion(tx.reports, project.id, day.date);
      const id = fillPending?.id ?? randomUUID();

      const content = await buildReportContent(tx, project, day, {
        id,
        version,
        supersedes,
        generatedAt: now,
        trigger: req.trigger,
        requestedBy: req.requestedBy,
        previousHash,
      });
      if (day.endMs <= project.createdAt.getTime() && holdsNothing(content)) {
        throw new AppError(
          "Conflict",
          `the production day ${req.reportDate} (${project.timezone}) ended before the project was created ` +
            `(${project.createdAt.toISOString()}) and the project holds no readings and no records of it: ` +
            "a report of it would say nothing and stay in the project's chain for good",
        );
      }
      const bytes = reportBytes(content, req.reportDate);
      const generated = {
        // Also on a pending row: the window is the one the content was cut with.
        periodStart: new Date(day.startMs),
        periodEnd: new Date(day.endMs),
        status: "generated" as const,
        content: bytes,
        hashSha384: sha384Hex(bytes),
        previousHashSha384: previousHash,
        generatedAt: now,
      };

      const row = fillPending
        ? await tx.reports.update(id, generated)
        : await tx.reports.insert({
            id,
            projectId: project.id,
            reportDate: day.date,
            version,
            supersedes,
            createdAt: now,
            ...generated,
          });
      // The pending row was read in this transaction: it cannot have gone.
      if (!row) throw new Error(`report ${id}: the pending row was not found to fill in`);
      await tx.audit.append({
        at: now,
        userId: req.requestedBy,
        projectId: project.id,
        entity: "anh_report",
        entityId: id,
        action: fillPending ? "update" : "create",
        before: fillPending ? auditView(fillPending) : null,
        after: { ...auditView(row), trigger: req.trigger },
      });
      return row;
    },
    { snapshot: true },
  );
}
