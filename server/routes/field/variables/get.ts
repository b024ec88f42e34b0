import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { getVariable } from "../../../services/field/variables/list-variables.ts";
import type { Router } from "../../router.ts";
import { idParams } from "../field-schema.ts";
import { variableSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/variables/{id}",
  tags: ["Edge variables"],
  summary: "Get a variable",
  security: bearer,
  request: { params: idParams },
  responses: {
    200: json(variableSchema, "The variable"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountGetVariable(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:read") }, async (c) =>
    c.json(await getVariable(ctx, c.get("auth"), c.req.valid("param").id), 200),
  );
}
