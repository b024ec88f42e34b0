import { z } from "@hono/zod-openapi";
import { uuidParam } from "../../http/openapi.ts";
import { createUserRequest, passwordSchema, roleEnum, userSchema } from "../auth/schema.ts";

export const userIdParams = z.object({ id: uuidParam("id") });

/** CreateUserRequest (spec §4 PUT /admin/users/{id}) plus an optional is_active to (de)activate. */
export const updateUserRequest = createUserRequest
  .extend({
    is_active: z.boolean().optional().openapi({
      description: "omit to leave unchanged; false ends every session of the user",
    }),
  })
  .openapi("UpdateUserRequest");

export const resetPasswordRequest = z
  .object({ new_password: passwordSchema })
  .openapi("ResetPasswordRequest");

export const setUserProjectsRequest = z
  .object({
    project_ids: z
      .array(z.uuid({ error: "must be a UUID" }))
      .max(10_000)
      .openapi({ description: "the complete set of assigned projects; replaces the previous one" }),
  })
  .openapi("SetUserProjectsRequest");

export const userListResponse = z.array(userSchema).openapi("UserList");

export const roleListResponse = z.array(roleEnum).openapi("RoleList");
