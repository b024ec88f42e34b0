import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { listTanks } from "../../../services/field/assets/list-tanks.ts";
import type { Router } from "../../router.ts";
import { assetSchema } from "../assets/schema.ts";

const query = z.object({
  project_id: z
    .uuid("must be a UUID")
    .optional()
    .openapi({ param: { name: "project_id", in: "query" }, description: "only this project's tanks" }),
});

const route = createRoute({
  method: "get",
  path: "/",
  tags: ["Alerts and alarms"],
  summary: "List tanks",
  description:
    "Assets of type tank in the caller's projects, or in one project when project_id is given " +
    "(404 if it is not one of the caller's).",
  security: bearer,
  request: { query },
  responses: {
    200: json(z.array(assetSchema), "Tanks, by name"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListTanks(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:read") }, async (c) =>
    c.json(await listTanks(ctx, c.get("auth"), c.req.valid("query").project_id), 200),
  );
}
