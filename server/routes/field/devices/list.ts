import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { listAssetDevices } from "../../../services/field/devices/list-devices.ts";
import type { Router } from "../../router.ts";
import { assetIdParams, deviceSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/assets/{asset_id}/devices",
  tags: ["Edge devices"],
  summary: "List an asset's devices",
  security: bearer,
  request: { params: assetIdParams },
  responses: {
    200: json(z.array(deviceSchema), "Devices, by name"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountListDevices(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:read") }, async (c) =>
    c.json(await listAssetDevices(ctx, c.get("auth"), c.req.valid("param").asset_id), 200),
  );
}
