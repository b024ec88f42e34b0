import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { replaceAsset } from "../../../services/field/assets/update-asset.ts";
import type { Router } from "../../router.ts";
import { idParams } from "../field-schema.ts";
import { assetSchema, createAssetRequest } from "./schema.ts";

const route = createRoute({
  method: "put",
  path: "/assets/{id}",
  tags: ["Edge assets"],
  summary: "Replace an asset",
  description:
    "Takes the create body and replaces: omitted coordinates become null. project_id must be the asset's " +
    "own project (assets do not move between projects).",
  security: bearer,
  request: { params: idParams, ...jsonBody(createAssetRequest) },
  responses: {
    200: json(assetSchema, "Asset replaced"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountReplaceAsset(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(await replaceAsset(ctx, c.get("auth"), c.req.valid("param").id, c.req.valid("json")), 200),
  );
}
