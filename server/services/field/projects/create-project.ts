import { randomUUID } from "node:crypto";
import { seesAllProjects } from "../../../../shared/roles.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import { DEFAULT_PLAN, startSubscription } from "../../billing/start-subscription.ts";
import type { ServiceContext } from "../../context.ts";
import { assertHostIdFree } from "../../mqtt-credentials/host-ids.ts";
import { type ProjectDto, toProjectDto } from "../dto.ts";
import type { ProjectInput } from "../inputs.ts";
import { projectColumns } from "./project-columns.ts";
import { newProjectSlug } from "./project-slug.ts";

/**
 * Creates a project. A caller who only sees assigned projects (a supervisor) is assigned to the
 * new one in the same transaction; otherwise they could not see what they just created.
 */
export function createProject(
  ctx: ServiceContext,
  auth: AuthContext,
  input: ProjectInput,
): Promise<ProjectDto> {
  const columns = projectColumns(input);
  const now = ctx.clock.now();
  const id = randomUUID();
  return ctx.store.transaction(async (tx) => {
    const slug = await newProjectSlug(tx.field, columns.name, input.slug);
    const host = columns.sparkplugPrimaryHostId;
    if (host !== null) await assertHostIdFree(tx.mqttCredentials, host, id, "sparkplug_primary_host_id");
    const row = await tx.field.insertProject({ id, ...columns, slug, createdAt: now, updatedAt: now });
    if (!seesAllProjects(auth.role)) await tx.field.assignProject(auth.userId, id);
    const dto = toProjectDto(row);
    await tx.audit.append({
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
    await startSubscription(tx, {
      projectId: id,
      plan: DEFAULT_PLAN,
      now,
      userId: auth.userId,
      reason: "new project",
    });
    return dto;
  });
}
