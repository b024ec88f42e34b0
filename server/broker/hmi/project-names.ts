import { eq } from "drizzle-orm";
import { SPARKPLUG_NAMESPACE, sparkplugTopics, UNS_ROOT } from "../../../shared/mqtt/hmi-topics.ts";
import type { ServiceContext } from "../../services/context.ts";
import { projects } from "../../store/sqlite/schema/index.ts";

/** How HMIs address one project: its Sparkplug group and node, primary host, and UNS level. */
export type ProjectNames = {
  projectId: string;
  /** The project's slug: Sparkplug group_id and UNS level. */
  group: string;
  edgeNodeId: string;
  primaryHostId: string | null;
  /** `spBv1.0/{group}/`: every Sparkplug topic of the project starts so. */
  sparkplugPrefix: string;
  /** `caudal/uns/{group}/` */
  unsPrefix: string;
  /** `spBv1.0/{group}/NCMD/{edge_node_id}` */
  ncmdTopic: string;
  /** `spBv1.0/STATE/{primary_host_id}`, or null without a primary host. */
  stateTopic: string | null;
};

/**
 * Project names by id, read from the database once and kept until forget() (the HMI namespaces
 * call it on every change of the project). The broker's access checks read it per message: a Map
 * lookup, no database access.
 */
export class ProjectNamesCache {
  readonly #ctx: ServiceContext;
  readonly #byId = new Map<string, ProjectNames>();

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
  }

  /** The project's names; undefined when it does not exist. */
  get(projectId: string): ProjectNames | undefined {
    const known = this.#byId.get(projectId);
    if (known) return known;
    const row = this.#ctx.db
      .select({
        slug: projects.slug,
        edgeNodeId: projects.sparkplugEdgeNodeId,
        primaryHostId: projects.sparkplugPrimaryHostId,
      })
      .from(projects)
      .where(eq(projects.id, projectId))
      .get();
    if (!row) return undefined;
    const names: ProjectNames = {
      projectId,
      group: row.slug,
      edgeNodeId: row.edgeNodeId,
      primaryHostId: row.primaryHostId,
      sparkplugPrefix: `${SPARKPLUG_NAMESPACE}/${row.slug}/`,
      unsPrefix: `${UNS_ROOT}/${row.slug}/`,
      ncmdTopic: sparkplugTopics.node(row.slug, "NCMD", row.edgeNodeId),
      stateTopic: row.primaryHostId === null ? null : sparkplugTopics.state(row.primaryHostId),
    };
    this.#byId.set(projectId, names);
    return names;
  }

  forget(projectId: string): void {
    this.#byId.delete(projectId);
  }

  clear(): void {
    this.#byId.clear();
  }
}
