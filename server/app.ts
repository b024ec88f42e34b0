import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "./http/env.ts";
import { versionHeaders } from "./http/headers.ts";
import { notFoundHandler, onError } from "./http/on-error.ts";
import { requestLog } from "./http/request-log.ts";
import { validationHook } from "./http/validation.ts";
import { authRoutes } from "./routes/auth/index.ts";
import type { ServiceContext } from "./services/context.ts";

export type AppDeps = {
  ctx: ServiceContext;
};

/** Builds the HTTP application. No I/O happens here beyond what `deps` already opened. */
export function createApp(deps: AppDeps) {
  const { ctx } = deps;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("*", versionHeaders);
  app.use("*", requestLog(ctx.logger));
  app.onError(onError(ctx.logger));
  app.notFound(notFoundHandler);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
  });

  app.route("/api/auth", authRoutes(ctx));
  return app;
}

export type App = ReturnType<typeof createApp>;
