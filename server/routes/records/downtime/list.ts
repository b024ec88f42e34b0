import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { listDowntime } from "../../../services/records/downtime/list-downtime.ts";
import type { Router } from "../../router.ts";
import { LIST_DESCRIPTION, RECORDS_TAG, recordListQuery } from "../fields.ts";
import { downtimeRecord } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/",
  tags: [RECORDS_TAG],
  summary: "List downtime periods",
  description: `${LIST_DESCRIPTION} from/to bound \`started_at\`.`,
  security: bearer,
  request: { query: recordListQuery },
  responses: {
    200: json(z.array(downtimeRecord), "Downtime, latest started_at first"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListDowntime(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "records:read") }, async (c) =>
    c.json(await listDowntime(ctx, c.get("auth"), c.req.valid("query")), 200),
  );
}
