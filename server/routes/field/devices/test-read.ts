import { createRoute, z } from "@hono/zod-openapi";
import { guard } from "../../../http/guard.ts";
import { bearer, errorResponses, json } from "../../../http/openapi.ts";
import { TEST_READ_TIMEOUT_MS, testReadDevice } from "../../../services/agents/test-read.ts";
import type { ServiceContext } from "../../../services/context.ts";
import type { Router } from "../../router.ts";
import { idParams } from "../field-schema.ts";

const resultSchema = z.object({
  variable_id: z.uuid(),
  alias: z.string(),
  value: z.number().nullable().openapi({ description: "null unless quality is good" }),
  quality: z.enum(["good", "device_exception", "timeout", "comm_error", "config_error"]),
  detail: z
    .string()
    .nullish()
    .openapi({ description: "why the value is missing, e.g. the PLC's exception for a wrong address" }),
});

export const testReadSchema = z
  .object({
    device_id: z.uuid(),
    ok: z.boolean().openapi({ description: "false when the agent could not reach or configure the device" }),
    error: z.string().nullable().openapi({ example: "connect ECONNREFUSED 10.0.0.5:502" }),
    results: z.array(resultSchema),
    duration_ms: z.number().int(),
  })
  .openapi("TestReadResult", {
    example: {
      device_id: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
      ok: true,
      error: null,
      results: [
        {
          variable_id: "0b6c1f2e-3a4d-4e5f-8a9b-1c2d3e4f5a6b",
          alias: "wellhead_pressure",
          value: 1452.3,
          quality: "good",
          detail: null,
        },
        {
          variable_id: "1c7d2a3f-4b5e-4f60-9bac-2d3e4f5a6b7c",
          alias: "casing_pressure",
          value: null,
          quality: "device_exception",
          detail: "Modbus exception 2: illegal data address",
        },
      ],
      duration_ms: 184,
    },
  });

const route = createRoute({
  method: "post",
  path: "/devices/{id}/test-read",
  tags: ["Edge devices"],
  summary: "Read a device once through its agent",
  description: `The project's agent reads the device's enabled variables once, with the device and variables as they are now (deployed or not), and answers each value or error: a way to check addresses before deploying. It goes over MQTT to the agent; with no answer within ${TEST_READ_TIMEOUT_MS / 1000} s the answer is 504. The running pollers are not touched.`,
  security: bearer,
  request: { params: idParams },
  responses: {
    200: json(testReadSchema, "What the agent read"),
    ...errorResponses(400, 401, 403, 404, 409, 504),
  },
});

export function mountTestReadDevice(router: Router, ctx: ServiceContext): void {
  router.openapi({ ...route, middleware: guard(ctx, "config:write") }, async (c) =>
    c.json(await testReadDevice(ctx, c.get("auth"), c.req.valid("param").id), 200),
  );
}
