import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { createDevice } from "../../../services/field/devices/create-device.ts";
import type { Router } from "../../router.ts";
import { assetIdParams, createDeviceRequest, deviceSchema } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/assets/{asset_id}/devices",
  tags: ["Edge devices"],
  summary: "Add a device (PLC/RTU) to an asset",
  security: bearer,
  request: { params: assetIdParams, ...jsonBody(createDeviceRequest) },
  responses: {
    201: json(deviceSchema, "Device created"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountCreateDevice(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(await createDevice(ctx, c.get("auth"), c.req.valid("param").asset_id, c.req.valid("json")), 201),
  );
}
