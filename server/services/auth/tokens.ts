import { createHash, randomBytes } from "node:crypto";
import { errors, jwtVerify, SignJWT } from "jose";
import type { Role } from "../../../shared/roles.ts";

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
export const REFRESH_COOKIE = "caudal_refresh";
export const REFRESH_COOKIE_PATH = "/api/auth";

export type AccessClaims = { sub: string; sid: string; role: Role; exp: number };

export async function signAccessToken(
  key: Uint8Array,
  claims: Omit<AccessClaims, "exp">,
  now: Date,
): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ sid: claims.sid, role: claims.role })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(claims.sub)
    .setIssuer("caudal")
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
    .sign(key);
}

export type VerifyResult = { ok: true; claims: AccessClaims } | { ok: false; reason: "expired" | "invalid" };

/*
 * Verified claims by token, per key. HS256 verification is a pure function of (key, token), so a
 * token that verified once verifies again; only expiry depends on time and is re-checked on every
 * hit. Revocation is unaffected: the session is still read on every request (resolveAccessToken).
 * Only valid tokens enter, so the map grows only with tokens this server issued; oldest out first.
 */
const VERIFIED_MAX = 10_000;
const verifiedByKey = new WeakMap<Uint8Array, Map<string, AccessClaims>>();

function verifiedCache(key: Uint8Array): Map<string, AccessClaims> {
  let cache = verifiedByKey.get(key);
  if (!cache) {
    cache = new Map();
    verifiedByKey.set(key, cache);
  }
  return cache;
}

export async function verifyAccessToken(key: Uint8Array, token: string, now: Date): Promise<VerifyResult> {
  const cache = verifiedCache(key);
  const known = cache.get(token);
  if (known) {
    // jose's rule: expired once exp <= now, in whole seconds (RFC 7519 §4.1.4).
    if (known.exp <= Math.floor(now.getTime() / 1000)) {
      cache.delete(token);
      return { ok: false, reason: "expired" };
    }
    return { ok: true, claims: known };
  }
  try {
    // Every token this server signs has all three (signAccessToken): one without an expiry would
    // never expire, so it is no token of ours, whoever holds the key (RFC 7519 §4.1.2–4.1.6).
    const { payload } = await jwtVerify(token, key, {
      algorithms: ["HS256"],
      issuer: "caudal",
      currentDate: now,
      requiredClaims: ["exp", "iat", "sub"],
    });
    if (
      typeof payload.sub !== "string" ||
      typeof payload.sid !== "string" ||
      typeof payload.role !== "string" ||
      typeof payload.exp !== "number" ||
      typeof payload.iat !== "number"
    ) {
      return { ok: false, reason: "invalid" };
    }
    const claims: AccessClaims = {
      sub: payload.sub,
      sid: payload.sid,
      role: payload.role as Role,
      exp: payload.exp,
    };
    if (cache.size >= VERIFIED_MAX) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    cache.set(token, claims);
    return { ok: true, claims };
  } catch (err) {
    return { ok: false, reason: err instanceof errors.JWTExpired ? "expired" : "invalid" };
  }
}

/** Opaque random token (refresh tokens, agent tokens, recovery codes are made from this). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}
