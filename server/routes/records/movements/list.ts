import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { listMovements } from "../../../services/records/movements/list-movements.ts";
import type { Router } from "../../router.ts";
import { LIST_DESCRIPTION, RECORDS_TAG, recordListQuery } from "../fields.ts";
import { movementRecord } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/",
  tags: [RECORDS_TAG],
  summary: "List fluid movements",
  description: `${LIST_DESCRIPTION} from/to bound \`timestamp\`.`,
  security: bearer,
  request: { query: recordListQuery },
  responses: {
    200: json(z.array(movementRecord), "Movements, latest timestamp first"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListMovements(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "records:read") }, async (c) =>
    c.json(await listMovements(ctx, c.get("auth"), c.req.valid("query")), 200),
  );
}
