import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { issueMqttCredential } from "../../services/mqtt-credentials/issue-credential.ts";
import type { Router } from "../router.ts";
import { issuedCredentialSchema, newCredentialBody, projectParams } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/projects/{id}/mqtt-credentials",
  tags: ["HMI credentials"],
  summary: "Issue a read-only MQTT login for an HMI",
  description:
    "Supervisor and above. The login reads the project's Sparkplug B group (spBv1.0/{slug}/#), its unified namespace (caudal/uns/{slug}/#) and the STATE of the project's primary host (wider filters such as spBv1.0/# and # are granted, and deliver only these); it may publish only an NCMD Rebirth for the project's node, and STATE: that of its primary_host_id is honoured when it is the project's primary host, any other is taken and dropped. 409 when another project names primary_host_id. The password is shown once. Audited.",
  security: bearer,
  request: { params: projectParams, ...jsonBody(newCredentialBody) },
  responses: {
    201: json(issuedCredentialSchema, "The new login, with its password (shown once)"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountCreateMqttCredential(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await issueMqttCredential(ctx, c.get("auth"), id, c.req.valid("json")), 201);
  });
}
