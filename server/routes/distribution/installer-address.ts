import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../http/guard.ts";
import { bearer, errorResponses } from "../../http/openapi.ts";
import { installerAddress } from "../../services/agents/public-urls.ts";
import type { ServiceContext } from "../../services/context.ts";
import type { Router } from "../router.ts";
import { installerRequest } from "./installer-request.ts";
import { DISTRIBUTION_TAG } from "./schema.ts";

const addressSchema = z
  .object({
    server_url: z.string().openapi({ example: "http://caudal.plant.local:8080" }),
    source: z.enum(["PUBLIC_URL", "request"]).openapi({
      description: "PUBLIC_URL when it is set; `request`: the address this request came in on",
    }),
    loopback: z.boolean().openapi({
      description:
        "The address names only the server's own machine (localhost): agents elsewhere cannot reach it",
    }),
  })
  .openapi("InstallerAddress");

const route = createRoute({
  method: "get",
  path: "/installer-address",
  tags: [DISTRIBUTION_TAG],
  summary: "The server address installers downloaded by this client carry",
  description:
    "PUBLIC_URL when it is set. Unset, the address this request came in on (its Host), as the Linux install script and the MSI would carry it for the same client. 409 when that address is a loopback name (localhost) reached from another machine (a proxy or a port forward): installers are then refused until PUBLIC_URL is set.",
  security: bearer,
  responses: {
    200: { description: "The address", content: { "application/json": { schema: addressSchema } } },
    ...errorResponses(401, 403, 409),
  },
});

export function mountInstallerAddress(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, (c) =>
    c.json(installerAddress(ctx.config, installerRequest(c)), 200),
  );
}
