import { eq } from "drizzle-orm";
import { AppError, notFound } from "../../errors.ts";
import { appendAudit } from "../../store/sqlite/append-audit.ts";
import { anhReports } from "../../store/sqlite/schema/index.ts";
import { type AuthContext, canSeeProject } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { auditView, type ReportDto, toReportDto } from "./report-dto.ts";

/**
 * POST /anh/reports/{id}/submit: records that the report was sent to the regulator, by whom and
 * when. Only a generated report can be submitted: a pending one has no bytes yet and a submitted
 * one was already sent (409 for both). The bytes and hash are untouched.
 */
export function submitReport(ctx: ServiceContext, auth: AuthContext, id: string): ReportDto {
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const before = tx.select().from(anhReports).where(eq(anhReports.id, id)).get();
    if (!before || !canSeeProject(auth, before.projectId)) throw notFound("report");
    if (before.status === "submitted") {
      throw new AppError(
        "Conflict",
        `the report was already submitted at ${before.submittedAt?.toISOString() ?? "an unknown time"}`,
      );
    }
    if (before.status === "pending") {
      throw new AppError("Conflict", "the report is pending: generate it before submitting it");
    }
    const after = tx
      .update(anhReports)
      .set({ status: "submitted", submittedAt: now, submittedBy: auth.userId })
      .where(eq(anhReports.id, id))
      .returning()
      .get();
    appendAudit(tx, {
      at: now,
      userId: auth.userId,
      projectId: after.projectId,
      entity: "anh_report",
      entityId: id,
      action: "update",
      before: auditView(before),
      after: auditView(after),
    });
    return toReportDto(after);
  });
}
