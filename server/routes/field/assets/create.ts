import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { createAsset } from "../../../services/field/assets/create-asset.ts";
import type { Router } from "../../router.ts";
import { assetSchema, createAssetRequest } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/assets",
  tags: ["Edge assets"],
  summary: "Create an asset",
  description: "404 when project_id is unknown or not one of the caller's projects.",
  security: bearer,
  request: jsonBody(createAssetRequest),
  responses: {
    201: json(assetSchema, "Asset created"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountCreateAsset(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(await createAsset(ctx, c.get("auth"), c.req.valid("json")), 201),
  );
}
