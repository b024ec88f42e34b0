import { z } from "zod";

/**
 * What the server publishes for SCADA HMIs besides caudal/v1/…/live (docs/mqtt.md, "HMIs"):
 * Sparkplug B 3.0 (protobuf, sparkplug-payload) and a plain JSON unified namespace.
 */

/** The namespace element of every Sparkplug B topic [tck-id-topic-structure-namespace-a]. */
export const SPARKPLUG_NAMESPACE = "spBv1.0";

/** Sparkplug B message types (Caudal publishes every one but the commands). */
export type SparkplugMessageType = "NBIRTH" | "NDEATH" | "NDATA" | "NCMD" | "DBIRTH" | "DDEATH" | "DDATA";

export const sparkplugTopics = {
  /** spBv1.0/{group_id}/{type}/{edge_node_id} */
  node: (group: string, type: SparkplugMessageType, node: string) =>
    `${SPARKPLUG_NAMESPACE}/${group}/${type}/${node}`,
  /** spBv1.0/{group_id}/{type}/{edge_node_id}/{device_id} */
  device: (group: string, type: SparkplugMessageType, node: string, device: string) =>
    `${SPARKPLUG_NAMESPACE}/${group}/${type}/${node}/${device}`,
  /** A host application's STATE, JSON, retained [tck-id-host-topic-phid-birth-topic]. */
  state: (hostId: string) => `${SPARKPLUG_NAMESPACE}/STATE/${hostId}`,
} as const;

/** The node metric a host writes (NCMD) to ask for every birth again [tck-id-operational-behavior-data-commands-rebirth-name]. */
export const REBIRTH_METRIC = "Node Control/Rebirth";

/** The STATE payload of a host application, timestamp in ms UTC [tck-id-host-topic-phid-birth-payload]. */
export const statePayloadSchema = z.object({
  online: z.boolean(),
  timestamp: z.number().int().nonnegative(),
});
export type StatePayload = z.infer<typeof statePayloadSchema>;

/** The unified namespace: one retained JSON message per variable. */
export const UNS_ROOT = "caudal/uns";

/** caudal/uns/{project_slug}/{asset_slug}/{variable_slug} */
export const unsTopic = (projectSlug: string, assetSlug: string, variableSlug: string) =>
  `${UNS_ROOT}/${projectSlug}/${assetSlug}/${variableSlug}`;

/** A variable's latest committed value in the unified namespace (retained; cleared when it is deleted). */
export const unsPayloadSchema = z.object({
  /** Typed by the variable's data_type: a number, a boolean for `bool`, a string for `string`. */
  value: z.union([z.number(), z.boolean(), z.string()]),
  unit: z.string().nullable(),
  /** ISO 8601, the reading's own time. */
  timestamp: z.iso.datetime(),
  /** bad while the asset is in comm_loss. */
  quality: z.enum(["good", "bad"]),
});
export type UnsPayload = z.infer<typeof unsPayloadSchema>;
