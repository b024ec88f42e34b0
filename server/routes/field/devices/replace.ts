import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { replaceDevice } from "../../../services/field/devices/update-device.ts";
import type { Router } from "../../router.ts";
import { idParams } from "../field-schema.ts";
import { createDeviceRequest, deviceSchema } from "./schema.ts";

const route = createRoute({
  method: "put",
  path: "/devices/{id}",
  tags: ["Edge devices"],
  summary: "Replace a device",
  description: "Takes the create body and replaces: omitted optional fields reset to null (enabled to true).",
  security: bearer,
  request: { params: idParams, ...jsonBody(createDeviceRequest) },
  responses: {
    200: json(deviceSchema, "Device replaced"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountReplaceDevice(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(await replaceDevice(ctx, c.get("auth"), c.req.valid("param").id, c.req.valid("json")), 200),
  );
}
