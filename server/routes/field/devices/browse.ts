import { createRoute, z } from "@hono/zod-openapi";
import { parseNodeId } from "../../../../shared/field/protocols/opc-ua.ts";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import { BROWSE_TIMEOUT_MS, browseDevice } from "../../../services/agents/browse-device.ts";
import type { ServiceContext } from "../../../services/context.ts";
import type { Router } from "../../router.ts";
import { idParams } from "../field-schema.ts";

const browseBody = z
  .object({
    node_id: z
      .string()
      .nullish()
      .superRefine((value, ctx) => {
        if (value === null || value === undefined) return;
        const parsed = parseNodeId(value);
        if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.error });
      })
      .openapi({
        description: "the node to list; absent or null: the Objects folder",
        example: "ns=1;s=Separator",
      }),
  })
  .openapi("BrowseRequest");

const browseSchema = z
  .object({
    device_id: z.uuid(),
    node_id: z.string().nullable(),
    ok: z.boolean().openapi({ description: "false when the agent could not reach the server or the node" }),
    error: z.string().nullable(),
    children: z.array(
      z.object({
        node_id: z.string().openapi({ example: "ns=1;s=Separator.Pressure" }),
        browse_name: z.string().openapi({ example: "1:Pressure" }),
        node_class: z.string().openapi({ example: "Variable" }),
        data_type: z.string().nullable().openapi({ example: "Double", description: "variables only" }),
      }),
    ),
  })
  .openapi("BrowseResult");

const route = createRoute({
  method: "post",
  path: "/devices/{id}/browse",
  tags: ["Edge devices"],
  summary: "Browse an OPC UA device through its agent",
  description: `The project's agent connects to the OPC UA device with its current settings and lists the children of \`node_id\` (the Objects folder when absent): NodeId, browse name, node class and, for variables, the data type. It goes over MQTT to the agent; with no answer within ${BROWSE_TIMEOUT_MS / 1000} s the answer is 504. 409 for a device of another protocol, or when the agent is offline.`,
  security: bearer,
  // The body is optional: no body lists the Objects folder.
  request: {
    params: idParams,
    body: { required: false, content: { "application/json": { schema: browseBody } } },
  },
  responses: {
    200: json(browseSchema, "The node's children"),
    ...errorResponses(400, 401, 403, 404, 409, 415, 504),
  },
});

export function mountBrowseDevice(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(
      await browseDevice(ctx, c.get("auth"), c.req.valid("param").id, c.req.valid("json")?.node_id ?? null),
      200,
    ),
  );
}
