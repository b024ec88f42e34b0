import type { ServiceContext } from "../../services/context.ts";
import type { LiveTelemetry } from "../../ws/live-telemetry.ts";
import { newRouter, type Router } from "../router.ts";
import { mountTelemetryStream } from "./telemetry.ts";

/** /api/ws: WebSocket endpoints (wired in server.ts; see server/ws/upgrade-refusal.ts). */
export function wsRoutes(ctx: ServiceContext, live: LiveTelemetry): Router {
  const router = newRouter();
  mountTelemetryStream(router, ctx, live);
  return router;
}
