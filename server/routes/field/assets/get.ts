import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { getAsset } from "../../../services/field/assets/list-assets.ts";
import type { Router } from "../../router.ts";
import { idParams } from "../field-schema.ts";
import { assetSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/assets/{id}",
  tags: ["Edge assets"],
  summary: "Get an asset",
  security: bearer,
  request: { params: idParams },
  responses: {
    200: json(assetSchema, "The asset"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountGetAsset(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:read") }, async (c) =>
    c.json(await getAsset(ctx, c.get("auth"), c.req.valid("param").id), 200),
  );
}
