import type { Context } from "hono";
import { setCookie } from "hono/cookie";
import type { ServerConfig } from "../../config.ts";
import {
  ACCESS_TOKEN_TTL_SECONDS,
  REFRESH_COOKIE,
  REFRESH_COOKIE_PATH,
  REFRESH_TOKEN_TTL_SECONDS,
} from "../../services/auth/tokens.ts";

export function setRefreshCookie(c: Context, config: ServerConfig, refreshToken: string): void {
  setCookie(c, REFRESH_COOKIE, refreshToken, {
    httpOnly: true,
    sameSite: "Strict",
    path: REFRESH_COOKIE_PATH,
    secure: config.NODE_ENV === "production",
    maxAge: REFRESH_TOKEN_TTL_SECONDS,
  });
}

export function clearRefreshCookie(c: Context, config: ServerConfig): void {
  setCookie(c, REFRESH_COOKIE, "", {
    httpOnly: true,
    sameSite: "Strict",
    path: REFRESH_COOKIE_PATH,
    secure: config.NODE_ENV === "production",
    maxAge: 0,
  });
}

/** LoginResponse: `token` and `access_token` carry the same JWT (spec §2 LoginResponse). */
export function loginBody(
  accessToken: string,
  role: "superadmin" | "admin" | "supervisor" | "operador" | "anh_reader",
  projects: { id: string; name: string }[],
) {
  return {
    token: accessToken,
    access_token: accessToken,
    token_type: "Bearer" as const,
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    role,
    projects,
  };
}
