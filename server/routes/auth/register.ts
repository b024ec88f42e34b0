import { createRoute } from "@hono/zod-openapi";
import { errorResponses, json, jsonBody } from "../../http/openapi.ts";
import { registerUser } from "../../services/auth/register.ts";
import type { ServiceContext } from "../../services/context.ts";
import { toUserDto } from "../../services/users/user-dto.ts";
import { clientInfo } from "../client-info.ts";
import { enforceRateLimit, type LoginLimiters } from "../rate-limit.ts";
import type { Router } from "../router.ts";
import { createUserRequest, userSchema } from "./schema.ts";

const route = createRoute({
  method: "post",
  path: "/register",
  tags: ["Auth"],
  summary: "Self-registration (disabled in production)",
  description:
    "Creates a user with no projects. May not grant superadmin or admin (403). 403 RegistrationDisabled in " +
    "production and until the first account exists (POST /auth/setup/register).",
  request: jsonBody(createUserRequest),
  responses: {
    201: json(userSchema, "User created"),
    ...errorResponses(400, 403, 409, 429),
  },
});

export function mountRegister(router: Router, ctx: ServiceContext, limiters: LoginLimiters): void {
  router.openapi(route, async (c) => {
    const input = c.req.valid("json");
    enforceRateLimit(limiters, ctx, clientInfo(c).ip, input.email);
    const user = await registerUser(ctx, input);
    return c.json(toUserDto(user, []), 201);
  });
}
