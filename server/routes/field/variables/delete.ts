import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { deleteVariable } from "../../../services/field/variables/delete-variable.ts";
import type { Router } from "../../router.ts";
import { deleted, idParams } from "../field-schema.ts";

const route = createRoute({
  method: "delete",
  path: "/variables/{id}",
  tags: ["Edge variables"],
  summary: "Delete a variable",
  security: bearer,
  request: { params: idParams },
  responses: {
    204: deleted,
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountDeleteVariable(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) => {
    await deleteVariable(ctx, c.get("auth"), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
