import { createRoute } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import type { ServiceContext } from "../../../services/context.ts";
import { getInstallerBuild } from "../../../services/distribution/installer-builds/get-build.ts";
import type { Router } from "../../router.ts";
import { buildIdParams, INSTALLERS_TAG, installerBuildSchema } from "./schema.ts";

const route = createRoute({
  method: "get",
  path: "/projects/{id}/builds/{build_id}",
  tags: [INSTALLERS_TAG],
  summary: "An installer build: its status and log",
  description:
    "queued, running, succeeded or failed, with timestamps and the log (wixl's output included). A build left running when the server stopped is failed at the next start, and says so in its log.",
  security: bearer,
  request: { params: buildIdParams },
  responses: {
    200: json(installerBuildSchema, "The build"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export function mountGetBuild(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) => {
    const { id, build_id } = c.req.valid("param");
    return c.json(await getInstallerBuild(ctx, c.get("auth"), id, build_id), 200);
  });
}
