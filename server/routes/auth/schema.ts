import { z } from "@hono/zod-openapi";
import { ROLES } from "../../../shared/roles.ts";
import { PASSWORD_MAX, PASSWORD_MIN } from "../../services/auth/passwords.ts";
import { nameField } from "../field/field-schema.ts";

export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `must be at most ${PASSWORD_MAX} characters`);

export const emailSchema = z.email("must be a valid email address").max(254);

// Built with the OpenAPI-extended z, so it never depends on module evaluation order.
export const roleEnum = z.enum(ROLES).openapi({ example: "operador" });

export const createUserRequest = z
  .object({
    email: emailSchema,
    // The project-name rule: names reach audit logs, exports and reports, so no control characters.
    name: nameField(),
    role: roleEnum,
    password: passwordSchema,
  })
  .openapi("CreateUserRequest");

export const setupRegisterRequest = createUserRequest
  .extend({
    role: roleEnum.optional().openapi({ description: "ignored: the first account is always superadmin" }),
  })
  .openapi("SetupRegisterRequest");

export const loginRequest = z
  .object({
    email: emailSchema,
    password: z.string().min(1, "is required").max(PASSWORD_MAX),
    totp_code: z
      .string()
      .regex(/^\d{6}$/, "must be 6 digits")
      .optional(),
    recovery_code: z.string().min(1).max(64).optional(),
  })
  .openapi("LoginRequest");

export const projectSummary = z.object({ id: z.uuid(), name: z.string() }).openapi("ProjectSummary");

export const loginResponse = z
  .object({
    token: z.string().openapi({ description: "JWT access token, valid 15 minutes" }),
    access_token: z.string().openapi({ description: "the same JWT as `token`" }),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().openapi({ description: "seconds until the access token expires" }),
    role: roleEnum,
    projects: z.array(projectSummary),
  })
  .openapi("LoginResponse");

export const userSchema = z
  .object({
    id: z.uuid(),
    email: z.email(),
    name: z.string(),
    role: roleEnum,
    is_active: z.boolean(),
    two_factor_enabled: z.boolean(),
    projects: z.array(z.uuid()),
    created_at: z.iso.datetime(),
  })
  .openapi("User");

export const setupStatusResponse = z
  .object({ requires_setup: z.boolean(), has_users: z.boolean() })
  .openapi("SetupStatus");

export const messageResponse = z.object({ message: z.string() }).openapi("MessageResponse");
