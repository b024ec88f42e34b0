import { badRequest } from "../../../errors.ts";
import { optionalText, type ProjectInput } from "../inputs.ts";
import { canonicalTimeZone, DEFAULT_TIMEZONE } from "../timezone.ts";

/** The Sparkplug edge_node_id of a project that names none. */
export const DEFAULT_EDGE_NODE_ID = "agent";

/**
 * The writable columns of a project from a create/replace body; omitted fields take their defaults.
 * The slug is not here: it must be unique (project-slug.ts).
 */
export function projectColumns(input: ProjectInput) {
  const timezone = canonicalTimeZone(input.timezone ?? DEFAULT_TIMEZONE);
  if (!timezone) throw badRequest(`timezone: unknown IANA time zone "${input.timezone}"`);
  return {
    name: input.name.trim(),
    description: optionalText(input.description),
    location: optionalText(input.location),
    timezone,
    isActive: input.is_active ?? true,
    autoDeploy: input.auto_deploy ?? true,
    sparkplugEdgeNodeId: input.sparkplug_edge_node_id ?? DEFAULT_EDGE_NODE_ID,
    sparkplugPrimaryHostId: input.sparkplug_primary_host_id ?? null,
  };
}
