import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { revokeMqttCredential } from "../../services/mqtt-credentials/revoke-credential.ts";
import type { Router } from "../router.ts";
import { credentialParams } from "./schema.ts";

const route = createRoute({
  method: "delete",
  path: "/projects/{id}/mqtt-credentials/{credential_id}",
  tags: ["HMI credentials"],
  summary: "Revoke an HMI login",
  description:
    "Supervisor and above. The login stops working at once: its open MQTT connections are closed. Audited.",
  security: bearer,
  request: { params: credentialParams },
  responses: {
    204: { description: "Revoked" },
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountRevokeMqttCredential(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) => {
    const { id, credential_id } = c.req.valid("param");
    await revokeMqttCredential(ctx, c.get("auth"), id, credential_id);
    return c.body(null, 204);
  });
}
