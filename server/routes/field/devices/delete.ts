import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { deleteDevice } from "../../../services/field/devices/delete-device.ts";
import type { Router } from "../../router.ts";
import { deleted, idParams } from "../field-schema.ts";

const route = createRoute({
  method: "delete",
  path: "/devices/{id}",
  tags: ["Edge devices"],
  summary: "Delete a device and its variables",
  security: bearer,
  request: { params: idParams },
  responses: {
    204: deleted,
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountDeleteDevice(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) => {
    await deleteDevice(ctx, c.get("auth"), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
