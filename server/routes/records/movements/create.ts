import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { createMovement } from "../../../services/records/movements/create-movement.ts";
import type { Router } from "../../router.ts";
import { CREATE_DESCRIPTION, RECORDS_TAG } from "../fields.ts";
import { movementRecord, movementRequest } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/",
  tags: [RECORDS_TAG],
  summary: "Record a fluid movement",
  description: CREATE_DESCRIPTION,
  security: bearer,
  request: jsonBody(movementRequest),
  responses: {
    201: json(movementRecord, "Movement recorded"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountCreateMovement(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "records:write") }, async (c) =>
    c.json(await createMovement(ctx, c.get("auth"), c.req.valid("json")), 201),
  );
}
