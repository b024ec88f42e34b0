import { notFound } from "../../../errors.ts";
import { configChanged } from "../../agents/config-changed.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { assertHostIdFree } from "../../mqtt-credentials/host-ids.ts";
import { type ProjectDto, toProjectDto } from "../dto.ts";
import type { ProjectInput } from "../inputs.ts";
import { visibleProject } from "../lookup.ts";
import { projectColumns } from "./project-columns.ts";
import { replacedProjectSlug } from "./project-slug.ts";

/**
 * PUT semantics: the body replaces every writable field; last_health_report is the agent's, kept.
 * An omitted slug keeps the current one: HMIs address the project by it.
 */
export async function replaceProject(
  ctx: ServiceContext,
  auth: AuthContext,
  id: string,
  input: ProjectInput,
): Promise<ProjectDto> {
  const columns = projectColumns(input);
  const now = ctx.clock.now();
  const after = await ctx.store.transaction(async (tx) => {
    const current = await visibleProject(tx.field, auth, id);
    const before = toProjectDto(current);
    const slug = await replacedProjectSlug(tx.field, id, current.slug, input.slug);
    // Only a new one is checked: two projects that shared a host id before issue 28 keep working.
    const host = columns.sparkplugPrimaryHostId;
    if (host !== null && host !== current.sparkplugPrimaryHostId)
      await assertHostIdFree(tx.mqttCredentials, host, id, "sparkplug_primary_host_id");
    const row = await tx.field.updateProject(id, { ...columns, slug, updatedAt: now });
    if (!row) throw notFound("project");
    const after = toProjectDto(row);
    await tx.audit.append({
      at: now,
      userId: auth.userId,
      projectId: id,
      entity: "project",
      entityId: id,
      action: "update",
      before,
      after,
    });
    return after;
  });
  // Turning auto_deploy on deploys what was pending (auto-deploy skips when nothing changed).
  configChanged(ctx, id);
  return after;
}
