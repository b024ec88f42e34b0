import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { getDevice } from "../../../services/field/devices/list-devices.ts";
import type { Router } from "../../router.ts";
import { idParams } from "../field-schema.ts";
import { deviceSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/devices/{id}",
  tags: ["Edge devices"],
  summary: "Get a device",
  security: bearer,
  request: { params: idParams },
  responses: {
    200: json(deviceSchema, "The device"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountGetDevice(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:read") }, async (c) =>
    c.json(await getDevice(ctx, c.get("auth"), c.req.valid("param").id), 200),
  );
}
