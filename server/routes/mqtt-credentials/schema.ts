import { z } from "@hono/zod-openapi";
import { SPARKPLUG_ID_PATTERN, SPARKPLUG_ID_RULE } from "../../../shared/field/slug.ts";
import { uuidParam } from "../../http/openapi.ts";
import { nameField } from "../field/field-schema.ts";

export const projectParams = z.object({ id: uuidParam("id") });

export const credentialParams = z.object({ id: uuidParam("id"), credential_id: uuidParam("credential_id") });

const primaryHostId = () =>
  z.string().regex(SPARKPLUG_ID_PATTERN, `must be ${SPARKPLUG_ID_RULE}`).nullable().optional().openapi({
    description:
      "The Sparkplug host id (the host application's Primary Host ID) whose spBv1.0/STATE/{host_id} this login may publish; honoured when it is also the project's sparkplug_primary_host_id. Null or omitted: none (its STATE publishes are taken and dropped). 409 when another project names it, as its primary host or on one of its logins.",
    example: "scada-control-room",
  });

export const newCredentialBody = z
  .object({
    name: nameField().openapi({
      description: "Who uses it, for people reading the list",
      example: "Ignition, control room",
    }),
    primary_host_id: primaryHostId(),
  })
  .openapi("NewMqttCredential");

export const updateCredentialBody = z
  .object({
    name: nameField().openapi({
      description: "Its name (give the current one to keep it)",
      example: "Ignition, control room",
    }),
    primary_host_id: primaryHostId().openapi({ description: "Omitted: unchanged; null: none" }),
  })
  .openapi("UpdateMqttCredential", {
    description:
      "A new primary_host_id closes the login's open connections: the HMI connects again under it.",
  });

export const credentialSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    username: z.string().openapi({ description: "The MQTT user name: hmi:<id>", example: "hmi:5d1c…" }),
    primary_host_id: z.string().nullable().openapi({ example: "scada-control-room" }),
    created_by: z.uuid().nullable(),
    created_at: z.iso.datetime(),
  })
  .openapi("MqttCredential");

export const issuedCredentialSchema = credentialSchema
  .extend({
    password: z.string().openapi({ description: "Shown once. Only its SHA-256 is stored." }),
  })
  .openapi("IssuedMqttCredential");
