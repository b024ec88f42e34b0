import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import { createSnapshot } from "../../services/billing/create-snapshot.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { BILLING_TAG, snapshotRequest, snapshotSchema } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/snapshots",
  tags: [BILLING_TAG],
  summary: "Store a snapshot of a project's usage",
  description: "Measures the current month's usage now and stores it. Requires admin or superadmin.",
  security: bearer,
  request: jsonBody(snapshotRequest),
  responses: {
    201: json(snapshotSchema, "The stored snapshot"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountCreateSnapshot(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "billing:write") }, async (c) =>
    c.json(await createSnapshot(ctx, c.get("auth"), c.req.valid("json").project_id), 201),
  );
}
