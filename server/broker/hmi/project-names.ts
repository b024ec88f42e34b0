import { SPARKPLUG_NAMESPACE, sparkplugTopics, UNS_ROOT } from "../../../shared/mqtt/hmi-topics.ts";
import type { FieldStore } from "../../store/ports/field-store.ts";

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
 * Project names by id, for the broker's access checks, which read them per message: a Map lookup,
 * no database access. load() reads a project's names (start-up loads every project, a change
 * loads them again); until a new load answers, the previous names stand.
 */
export class ProjectNamesCache {
  readonly #field: FieldStore;
  readonly #byId = new Map<string, ProjectNames>();

  constructor(field: FieldStore) {
    this.#field = field;
  }

  /** The project's names; undefined when it does not exist or is not loaded. */
  get(projectId: string): ProjectNames | undefined {
    return this.#byId.get(projectId);
  }

  /** Reads the project's names again; undefined (and forgotten) when it does not exist. */
  async load(projectId: string): Promise<ProjectNames | undefined> {
    const row = await this.#field.project(projectId);
    if (!row) {
      this.#byId.delete(projectId);
      return undefined;
    }
    const names: ProjectNames = {
      projectId,
      group: row.slug,
      edgeNodeId: row.sparkplugEdgeNodeId,
      primaryHostId: row.sparkplugPrimaryHostId,
      sparkplugPrefix: `${SPARKPLUG_NAMESPACE}/${row.slug}/`,
      unsPrefix: `${UNS_ROOT}/${row.slug}/`,
      ncmdTopic: sparkplugTopics.node(row.slug, "NCMD", row.sparkplugEdgeNodeId),
      stateTopic:
        row.sparkplugPrimaryHostId === null ? null : sparkplugTopics.state(row.sparkplugPrimaryHostId),
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
