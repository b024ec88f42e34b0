import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { listDeviceVariables } from "../../../services/field/variables/list-variables.ts";
import type { Router } from "../../router.ts";
import { deviceIdParams, variableSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/devices/{device_id}/variables",
  tags: ["Edge variables"],
  summary: "List a device's variables",
  security: bearer,
  request: { params: deviceIdParams },
  responses: {
    200: json(z.array(variableSchema), "Variables, by alias"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListVariables(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:read") }, async (c) =>
    c.json(await listDeviceVariables(ctx, c.get("auth"), c.req.valid("param").device_id), 200),
  );
}
