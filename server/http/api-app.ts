import { OpenAPIHono } from "@hono/zod-openapi";
import type { Logger } from "../logger.ts";
import type { ServiceContext } from "../services/context.ts";
import { AUTH_BODY_MAX_BYTES, REQUEST_BODY_MAX_BYTES, requestBodyLimit } from "./body-limit.ts";
import type { AppEnv } from "./env.ts";
import { versionHeaders } from "./headers.ts";
import { httpMetrics } from "./metrics.ts";
import { notFoundHandler, onError } from "./on-error.ts";
import { requestLog } from "./request-log.ts";
import { securityHeaders } from "./security-headers.ts";
import { validationHook } from "./validation.ts";
import { installValidationMessages } from "./validation-messages.ts";

/**
 * An app with what every response gets, whichever thread answers it (the main thread's app, or
 * an HTTP worker thread's ingest routes): version and security headers, the request log line,
 * the HTTP metrics, the body limits, the one error handler and the one validation hook.
 */
export function newApiApp(ctx: ServiceContext, requestLogger: Logger): OpenAPIHono<AppEnv> {
  installValidationMessages();
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use("*", versionHeaders);
  app.use("*", securityHeaders);
  app.use("*", requestLog(requestLogger));
  app.use("*", httpMetrics(ctx.metrics));
  app.use("*", requestBodyLimit(REQUEST_BODY_MAX_BYTES));
  app.use("/api/auth/*", requestBodyLimit(AUTH_BODY_MAX_BYTES));
  app.use("/api/edge/agents/enroll", requestBodyLimit(AUTH_BODY_MAX_BYTES));
  app.onError(onError(ctx.logger));
  app.notFound(notFoundHandler);
  return app;
}
