import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json, jsonBody } from "../../http/openapi.ts";
import { setSubscription } from "../../services/billing/set-subscription.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { BILLING_TAG, projectIdParams, subscriptionRequest, subscriptionSchema } from "./schema.ts";

const route = createRoute({
  method: "put",
  path: "/admin/subscriptions/{project_id}",
  tags: [BILLING_TAG],
  summary: "Assign or change a project's plan",
  description:
    "Superadmin only; 403 for every other role. Every project is on a plan from its creation " +
    "(starter, unless set here), and its creation month's invoice was issued then; a change of plan " +
    "applies from the next invoice (issued invoices are not re-priced).",
  security: bearer,
  request: { params: projectIdParams, ...jsonBody(subscriptionRequest) },
  responses: {
    200: json(subscriptionSchema, "The subscription"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountSetSubscription(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "billing:admin") }, async (c) =>
    c.json(
      await setSubscription(ctx, c.get("auth"), c.req.valid("param").project_id, c.req.valid("json").plan),
      200,
    ),
  );
}
