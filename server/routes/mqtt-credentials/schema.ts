import { z } from "@hono/zod-openapi";
import { uuidParam } from "../../http/openapi.ts";
import { nameField } from "../field/field-schema.ts";

export const projectParams = z.object({ id: uuidParam("id") });

export const credentialParams = z.object({ id: uuidParam("id"), credential_id: uuidParam("credential_id") });

export const newCredentialBody = z
  .object({
    name: nameField().openapi({
      description: "Who uses it, for people reading the list",
      example: "Ignition, control room",
    }),
  })
  .openapi("NewMqttCredential");

export const credentialSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    username: z.string().openapi({ description: "The MQTT user name: hmi:<id>", example: "hmi:5d1c…" }),
    created_by: z.uuid().nullable(),
    created_at: z.iso.datetime(),
  })
  .openapi("MqttCredential");

export const issuedCredentialSchema = credentialSchema
  .extend({
    password: z.string().openapi({ description: "Shown once. Only its SHA-256 is stored." }),
  })
  .openapi("IssuedMqttCredential");
