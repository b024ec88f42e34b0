import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { createVariable } from "../../../services/field/variables/create-variable.ts";
import type { Router } from "../../router.ts";
import { createVariableRequest, deviceIdParams, variableSchema } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/devices/{device_id}/variables",
  tags: ["Edge variables"],
  summary: "Add a variable (tag) to a device",
  description: "409 when another variable of the device already uses the alias.",
  security: bearer,
  request: { params: deviceIdParams, ...jsonBody(createVariableRequest) },
  responses: {
    201: json(variableSchema, "Variable created"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountCreateVariable(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(
      await createVariable(ctx, c.get("auth"), c.req.valid("param").device_id, c.req.valid("json")),
      201,
    ),
  );
}
