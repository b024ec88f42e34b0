import { AppError, notFound } from "../../errors.ts";
import { type AuthContext, canSeeProject } from "../auth/auth-context.ts";
import type { ServiceContext } from "../context.ts";
import { auditView, type ReportDto, toReportDto } from "./report-dto.ts";

/**
 * POST /anh/reports/{id}/submit: records that the report was sent to the regulator, by whom and
 * when. Only a generated report can be submitted: a pending one has no bytes yet and a submitted
 * one was already sent (409 for both). The bytes and hash are untouched.
 */
export async function submitReport(ctx: ServiceContext, auth: AuthContext, id: string): Promise<ReportDto> {
  const now = ctx.clock.now();
  return ctx.store.transaction(async (tx) => {
    const before = await tx.reports.report(id);
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
    const after = await tx.reports.update(id, {
      status: "submitted",
      submittedAt: now,
      submittedBy: auth.userId,
    });
    if (!after) throw notFound("report");
    await tx.audit.append({
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
