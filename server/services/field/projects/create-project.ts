import { randomUUID } from "node:crypto";
import { seesAllProjects } from "../../../../shared/roles.ts";
import { projects, userProjects } from "../../../store/sqlite/schema/index.ts";
import { appendAudit } from "../../audit/append-audit.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import { DEFAULT_PLAN, startSubscriptionIn } from "../../billing/start-subscription.ts";
import type { ServiceContext } from "../../context.ts";
import { type ProjectDto, toProjectDto } from "../dto.ts";
import type { ProjectInput } from "../inputs.ts";
import { projectColumns } from "./project-columns.ts";
import { newProjectSlug } from "./project-slug.ts";

/**
 * Creates a project. A caller who only sees assigned projects (a supervisor) is assigned to the
 * new one in the same transaction; otherwise they could not see what they just created.
 */
export function createProject(ctx: ServiceContext, auth: AuthContext, input: ProjectInput): ProjectDto {
  const columns = projectColumns(input);
  const now = ctx.clock.now();
  const id = randomUUID();
  return ctx.db.transaction((tx) => {
    const row = tx
      .insert(projects)
      .values({
        id,
        ...columns,
        slug: newProjectSlug(tx, columns.name, input.slug),
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    if (!seesAllProjects(auth.role)) {
      tx.insert(userProjects).values({ userId: auth.userId, projectId: id }).run();
    }
    const dto = toProjectDto(row);
    appendAudit(tx, {
      at: now,
      userId: auth.userId,
      projectId: id,
      entity: "project",
      entityId: id,
      action: "create",
      before: null,
      after: dto,
    });
    // Every project has a plan (spec §2, BillingUsage.plan); a superadmin may change it later.
    startSubscriptionIn(tx, {
      projectId: id,
      plan: DEFAULT_PLAN,
      now,
      userId: auth.userId,
      reason: "new project",
    });
    return dto;
  });
}
