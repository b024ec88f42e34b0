import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { updateMqttCredential } from "../../services/mqtt-credentials/update-credential.ts";
import type { Router } from "../router.ts";
import { credentialParams, credentialSchema, updateCredentialBody } from "./schema.ts";

const route = createRoute({
  method: "patch",
  path: "/projects/{id}/mqtt-credentials/{credential_id}",
  tags: ["HMI credentials"],
  summary: "Rename an HMI login, or change its primary host id",
  description:
    "Supervisor and above. The password is unchanged. A changed primary_host_id ends the login's open connections at once (the HMI connects again under the new one). 409 when another project names that host id. Audited.",
  security: bearer,
  request: { params: credentialParams, ...jsonBody(updateCredentialBody) },
  responses: {
    200: json(credentialSchema, "The login as it is now"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountUpdateMqttCredential(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) => {
    const { id, credential_id } = c.req.valid("param");
    return c.json(
      await updateMqttCredential(ctx, c.get("auth"), id, credential_id, c.req.valid("json")),
      200,
    );
  });
}
