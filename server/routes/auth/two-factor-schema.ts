import { z } from "@hono/zod-openapi";
import { PASSWORD_MAX } from "../../services/auth/passwords.ts";

const totpCode = z
  .string()
  .regex(/^\d{6}$/, "must be 6 digits")
  .openapi({ example: "123456", description: "the current code of the authenticator app" });

const totpOrRecoveryCode = z
  .string()
  .trim()
  .min(1, "is required")
  .max(64)
  .openapi({ example: "123456", description: "a 6-digit TOTP code or an unused recovery code" });

export const twoFactorSetupResponse = z
  .object({
    secret: z.string().openapi({ description: "base32 TOTP secret, shown once" }),
    otpauth_url: z.string().openapi({ description: "otpauth:// URI for authenticator apps (QR code)" }),
  })
  .openapi("TwoFactorSetup");

export const twoFactorEnableRequest = z.object({ code: totpCode }).openapi("TwoFactorEnableRequest");

export const twoFactorDisableRequest = z
  .object({ password: z.string().min(1, "is required").max(PASSWORD_MAX), code: totpOrRecoveryCode })
  .openapi("TwoFactorDisableRequest");

export const recoveryCodesRequest = z.object({ code: totpOrRecoveryCode }).openapi("RecoveryCodesRequest");

export const recoveryCodesResponse = z
  .object({
    recovery_codes: z
      .array(z.string())
      .openapi({ description: "10 one-time codes, shown once; each replaces totp_code at login once" }),
  })
  .openapi("RecoveryCodes");
