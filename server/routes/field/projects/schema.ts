import { z } from "@hono/zod-openapi";
import {
  SLUG_MAX,
  SLUG_PATTERN,
  SLUG_RULE,
  SPARKPLUG_ID_PATTERN,
  SPARKPLUG_ID_RULE,
} from "../../../../shared/field/slug.ts";
import { agentHealthReportSchema } from "../../../services/agents/health-report.ts";
import { DEFAULT_EDGE_NODE_ID } from "../../../services/field/projects/project-columns.ts";
import { canonicalTimeZone, DEFAULT_TIMEZONE } from "../../../services/field/timezone.ts";
import { assetSchema } from "../assets/schema.ts";
import { deviceSchema } from "../devices/schema.ts";
import { nameField, optionalTextField } from "../field-schema.ts";
import { variableSchema } from "../variables/schema.ts";

const sparkplugId = () => z.string().regex(SPARKPLUG_ID_PATTERN, `must be ${SPARKPLUG_ID_RULE}`);

export const createProjectRequest = z
  .object({
    name: nameField().openapi({ example: "Campo Rubiales — Clúster 4" }),
    description: optionalTextField(2000),
    location: optionalTextField(500).openapi({ example: "Puerto Gaitán, Meta" }),
    timezone: z
      .string()
      .max(64)
      .refine((v) => canonicalTimeZone(v) !== null, "must be an IANA time zone such as America/Bogota")
      .optional()
      .openapi({
        description: "IANA zone in which the production day of the ANH daily report is cut",
        default: DEFAULT_TIMEZONE,
        example: DEFAULT_TIMEZONE,
      }),
    is_active: z.boolean().optional().openapi({ default: true }),
    auto_deploy: z.boolean().optional().openapi({
      default: true,
      description:
        "Deploy every change to the project's devices, variables and alert rules to its agent automatically, about 2 s after the last change of a burst. When false, changes wait for POST /edge/projects/{id}/deploy (config_status shows them pending).",
    }),
    slug: z
      .string()
      .max(SLUG_MAX, `must be at most ${SLUG_MAX} characters`)
      .regex(SLUG_PATTERN, `must be ${SLUG_RULE}`)
      .optional()
      .openapi({
        description:
          "Unique. The project's Sparkplug group_id and its level in caudal/uns/. Omitted: derived from the name on create (with -2, -3, … when taken), kept on replace. 409 when another project has it.",
        example: "campo-rubiales-cluster-4",
      }),
    sparkplug_edge_node_id: sparkplugId().optional().openapi({
      description: "The Sparkplug edge_node_id of the project's agent",
      default: DEFAULT_EDGE_NODE_ID,
    }),
    sparkplug_primary_host_id: sparkplugId().nullable().optional().openapi({
      description:
        "A Sparkplug 3.0 primary host application: while its spBv1.0/STATE/{host_id} is not online, nothing is published for the project's group. Null (the default) publishes always. Only a STATE published by an HMI login given this host id (its primary_host_id) counts. 409 when another project names it, as its primary host or on one of its HMI logins.",
      example: "scada-control-room",
    }),
  })
  .openapi("CreateProjectRequest", {
    description: "Create body; PUT takes the same body and replaces (omitted fields reset to defaults).",
  });

export const projectSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string().openapi({ example: "campo-rubiales-cluster-4" }),
    description: z.string().nullable(),
    location: z.string().nullable(),
    timezone: z.string().openapi({ example: DEFAULT_TIMEZONE }),
    is_active: z.boolean(),
    auto_deploy: z.boolean(),
    sparkplug_edge_node_id: z.string().openapi({ example: DEFAULT_EDGE_NODE_ID }),
    sparkplug_primary_host_id: z.string().nullable(),
    last_health_report: agentHealthReportSchema
      .openapi("AgentHealthReport")
      .nullable()
      .openapi({ description: "the agent's latest health report; null until one arrives" }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi("EdgeProject");

const deviceTreeSchema = deviceSchema
  .extend({ variables: z.array(variableSchema) })
  .openapi("EdgeDeviceWithVariables");

const assetTreeSchema = assetSchema
  .extend({ devices: z.array(deviceTreeSchema) })
  .openapi("EdgeAssetWithDevices");

export const configStatusSchema = z
  .object({
    deployed_version: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "null before the first deployment" }),
    deployed_hash: z.string().nullable(),
    pending_changes: z.boolean().openapi({
      description:
        "The configuration hash of the project's devices, variables and alert rules now differs from the deployed one (before any deployment: from an empty configuration)",
    }),
  })
  .openapi("ConfigStatus");

export const projectWithConfigStatusSchema = projectSchema
  .extend({ config_status: configStatusSchema })
  .openapi("EdgeProjectWithConfigStatus");

export const projectTreeSchema = projectSchema
  .extend({ assets: z.array(assetTreeSchema) })
  .openapi("EdgeProjectFull");
