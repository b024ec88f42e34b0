import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import type { ServiceContext } from "../../services/context.ts";
import { listMqttCredentials } from "../../services/mqtt-credentials/list-credentials.ts";
import type { Router } from "../router.ts";
import { credentialSchema, projectParams } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/projects/{id}/mqtt-credentials",
  tags: ["HMI credentials"],
  summary: "List the project's HMI logins",
  description: "Supervisor and above. Oldest first; passwords are never shown again.",
  security: bearer,
  request: { params: projectParams },
  responses: {
    200: json(z.array(credentialSchema), "The project's HMI logins"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListMqttCredentials(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(await listMqttCredentials(ctx, c.get("auth"), c.req.valid("param").id), 200),
  );
}
