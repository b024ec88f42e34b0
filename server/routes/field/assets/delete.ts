import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { deleteAsset } from "../../../services/field/assets/delete-asset.ts";
import type { Router } from "../../router.ts";
import { deleted, idParams } from "../field-schema.ts";

const route = createRoute({
  method: "delete",
  path: "/assets/{id}",
  tags: ["Edge assets"],
  summary: "Delete an asset and its devices",
  description:
    "Also removes the devices' variables and the asset's telemetry and alarms. 409 while well tests or " +
    "meter readings name the asset: those are regulatory quantity records, kept original.",
  security: bearer,
  request: { params: idParams },
  responses: {
    204: deleted,
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export function mountDeleteAsset(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) => {
    await deleteAsset(ctx, c.get("auth"), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
