import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { replaceVariable } from "../../../services/field/variables/update-variable.ts";
import type { Router } from "../../router.ts";
import { idParams } from "../field-schema.ts";
import { createVariableRequest, variableSchema } from "./schema.ts";

const route = createRoute({
  method: "put",
  path: "/variables/{id}",
  tags: ["Edge variables"],
  summary: "Replace a variable",
  description:
    "Takes the create body and replaces: omitted optional fields reset to null or their defaults " +
    "(enabled true, register_kind holding, word_order ABCD, poll_interval_ms 1000, deadband 0). 409 when the alias is taken.",
  security: bearer,
  request: { params: idParams, ...jsonBody(createVariableRequest) },
  responses: {
    200: json(variableSchema, "Variable replaced"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountReplaceVariable(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(await replaceVariable(ctx, c.get("auth"), c.req.valid("param").id, c.req.valid("json")), 200),
  );
}
