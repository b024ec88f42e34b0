import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, uuidParam } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { listProjectAssets } from "../../../services/field/assets/list-assets.ts";
import type { Router } from "../../router.ts";
import { assetSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/projects/{project_id}/assets",
  tags: ["Edge assets"],
  summary: "List a project's assets",
  security: bearer,
  request: { params: z.object({ project_id: uuidParam("project_id") }) },
  responses: {
    200: json(z.array(assetSchema), "Assets, by name"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListAssets(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:read") }, async (c) =>
    c.json(await listProjectAssets(ctx, c.get("auth"), c.req.valid("param").project_id), 200),
  );
}
