import type { ServiceContext } from "../../services/context.ts";
import { newRouter, type Router } from "../router.ts";
import { mountCreateMqttCredential } from "./create.ts";
import { mountListMqttCredentials } from "./list.ts";
import { mountRevokeMqttCredential } from "./revoke.ts";
import { mountUpdateMqttCredential } from "./update.ts";

/** /api/edge/projects/{id}/mqtt-credentials: read-only MQTT logins for SCADA HMIs (issue 11). */
export function mqttCredentialRoutes(ctx: ServiceContext): Router {
  const router = newRouter();
  mountCreateMqttCredential(router, ctx);
  mountListMqttCredentials(router, ctx);
  mountUpdateMqttCredential(router, ctx);
  mountRevokeMqttCredential(router, ctx);
  return router;
}
