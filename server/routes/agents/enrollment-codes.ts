import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses, json } from "../../http/openapi.ts";
import {
  issueEnrollmentCode,
  listEnrollmentCodes,
  revokeEnrollmentCode,
} from "../../services/agents/enrollment-codes.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import {
  codeIdParams,
  enrollmentCodeSchema,
  issuedEnrollmentCodeSchema,
  newEnrollmentCodeBody,
} from "./enrollment-schema.ts";
import { projectIdParams } from "./schema.ts";

const tags = ["Edge agents"];

const issueRoute = createRoute({
  method: "post",
  path: "/projects/{id}/enrollment-codes",
  tags,
  summary: "Issue a one-time enrollment code",
  description:
    "An agent configured with `enrollment_code` trades it once for the project's agent token at POST /api/edge/agents/enroll. The code is shown once; it is valid for 7 days unless `ttl_seconds` says otherwise. Enrolling replaces the project's agent token.",
  security: bearer,
  // The body is optional: no body issues a code valid for 7 days.
  request: {
    params: projectIdParams,
    body: { required: false, content: { "application/json": { schema: newEnrollmentCodeBody } } },
  },
  responses: {
    201: json(issuedEnrollmentCodeSchema, "The new code, shown once"),
    ...errorResponses(400, 401, 403, 404, 415),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/projects/{id}/enrollment-codes",
  tags,
  summary: "The project's enrollment codes, newest first (without the codes)",
  security: bearer,
  request: { params: projectIdParams },
  responses: {
    200: json(z.array(enrollmentCodeSchema), "Enrollment codes"),
    ...errorResponses(400, 401, 403, 404),
  },
});

const revokeRoute = createRoute({
  method: "delete",
  path: "/projects/{id}/enrollment-codes/{code_id}",
  tags,
  summary: "Revoke an enrollment code",
  description:
    "The code no longer enrolls an agent nor downloads the agent binary, so an installer made with it stops working. An agent already enrolled with it keeps its token. Revoking a revoked code changes nothing.",
  security: bearer,
  request: { params: codeIdParams },
  responses: {
    200: json(enrollmentCodeSchema, "The revoked code"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountEnrollmentCodes(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...issueRoute, middleware: guard(ctx, "config:write") }, async (c) => {
    const ttlSeconds = c.req.valid("json")?.ttl_seconds;
    const issued = await issueEnrollmentCode(ctx, c.get("auth"), c.req.valid("param").id, {
      purpose: "manual",
      ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
    });
    return c.json(issued, 201);
  });
  router.openapi({ ...listRoute, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(await listEnrollmentCodes(ctx, c.get("auth"), c.req.valid("param").id), 200),
  );
  router.openapi({ ...revokeRoute, middleware: guard(ctx, "config:write") }, async (c) => {
    const { id, code_id } = c.req.valid("param");
    return c.json(await revokeEnrollmentCode(ctx, c.get("auth"), id, code_id), 200);
  });
}
