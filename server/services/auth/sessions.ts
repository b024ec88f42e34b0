import { randomUUID } from "node:crypto";
import { ROLES, type Role, seesAllProjects } from "../../../shared/roles.ts";
import { AppError } from "../../errors.ts";
import type { Store } from "../../store/store.ts";
import type { ServiceContext } from "../context.ts";
import type { AuthContext } from "./auth-context.ts";
import { REFRESH_REUSE_GRACE_MS, RefreshGrace, type Rotation } from "./refresh-grace.ts";
import {
  REFRESH_TOKEN_TTL_SECONDS,
  randomToken,
  sha256Hex,
  signAccessToken,
  verifyAccessToken,
} from "./tokens.ts";

export type IssuedTokens = { accessToken: string; refreshToken: string; sessionId: string };

type ClientInfo = { ip?: string | undefined; userAgent?: string | undefined };

export async function startSession(
  ctx: ServiceContext,
  user: { id: string; role: AuthContext["role"] },
  client: ClientInfo,
): Promise<IssuedTokens> {
  const now = ctx.clock.now();
  const sessionId = randomUUID();
  const refreshToken = randomToken();
  await ctx.store.identity.openSession(
    {
      id: sessionId,
      userId: user.id,
      createdAt: now,
      expiresAt: new Date(now.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000),
      ip: client.ip ?? null,
      userAgent: client.userAgent?.slice(0, 256) ?? null,
    },
    sha256Hex(refreshToken),
  );
  const accessToken = await signAccessToken(
    ctx.keys.jwt,
    { sub: user.id, sid: sessionId, role: user.role },
    now,
  );
  return { accessToken, refreshToken, sessionId };
}

const invalidRefresh = () => new AppError("Unauthorized", "refresh token is invalid or expired");

/** One grace map per store: tests run several servers, each over its own database, in one process. */
const graces = new WeakMap<Store, RefreshGrace>();

function graceOf(ctx: ServiceContext): RefreshGrace {
  let grace = graces.get(ctx.store);
  if (!grace) {
    grace = new RefreshGrace();
    graces.set(ctx.store, grace);
  }
  return grace;
}

/**
 * Rotates a refresh token. Presented again within REFRESH_REUSE_GRACE_MS of its rotation, it gets
 * the same successor and access token (no new pair); later, a token that was already rotated is a
 * sign of theft and the whole session is revoked (OAuth 2.0 Security BCP §4.14.2, refresh token
 * reuse detection). A revoked or expired session or an inactive user gets no grace.
 */
export async function rotateRefreshToken(ctx: ServiceContext, presented: string): Promise<Rotation> {
  const now = ctx.clock.now();
  const hash = sha256Hex(presented);
  const grace = graceOf(ctx);
  const next = randomToken();
  const outcome = await ctx.store.transaction(async (tx) => {
    const row = await tx.identity.refreshTokenHolder(hash);
    if (!row || row.session.revokedAt || row.session.expiresAt <= now || !row.user.isActive) return null;
    if (row.token.rotatedAt) {
      if (now.getTime() - row.token.rotatedAt.getTime() <= REFRESH_REUSE_GRACE_MS) return "grace" as const;
      await tx.identity.revokeSession(row.session.id, now, "refresh_token_reuse");
      return "reused" as const;
    }
    await tx.identity.rotateRefreshToken(hash, sha256Hex(next), row.session.id, now);
    return { sessionId: row.session.id, userId: row.user.id, role: row.user.role };
  });
  if (outcome === "grace") {
    // Within the grace period but not in memory: rotated before a restart. Refused, not reuse.
    const successor = grace.successorOf(hash, now.getTime());
    if (!successor) throw invalidRefresh();
    return successor;
  }
  if (outcome === "reused") {
    ctx.logger.warn("refresh token reuse: session revoked", {});
    ctx.events.emit("sessionRevoked", { sessionId: null, userId: null });
    throw invalidRefresh();
  }
  if (!outcome) throw invalidRefresh();
  const rotation = signAccessToken(
    ctx.keys.jwt,
    { sub: outcome.userId, sid: outcome.sessionId, role: outcome.role },
    now,
  ).then((accessToken) => ({
    accessToken,
    refreshToken: next,
    sessionId: outcome.sessionId,
    userId: outcome.userId,
  }));
  // Before the event loop turns after the commit (a store transaction never lets it turn): a
  // concurrent request with the same cookie, which comes in on a later turn, finds it.
  grace.remember(hash, sha256Hex(next), rotation, now.getTime());
  return rotation;
}

export async function revokeSession(ctx: ServiceContext, sessionId: string, reason: string): Promise<void> {
  await ctx.store.identity.revokeSession(sessionId, ctx.clock.now(), reason);
  ctx.events.emit("sessionRevoked", { sessionId, userId: null });
}

export type Resolved =
  | { ok: true; auth: AuthContext }
  | { ok: false; reason: "expired" | "invalid" | "revoked" };

const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);

/** Resolves a bearer token: valid signature, not expired, live session, active user. */
export async function resolveAccessToken(ctx: ServiceContext, token: string): Promise<Resolved> {
  const verified = await verifyAccessToken(ctx.keys.jwt, token, ctx.clock.now());
  if (!verified.ok) return verified;
  const { claims } = verified;
  // Read on every request (never cached), so revocation, deactivation and role changes apply at
  // once: two point reads and, for roles that see only assigned projects, their ids (issue 3's
  // measurement: see SqliteIdentityStore).
  const user = await ctx.store.identity.sessionUser(claims.sid, claims.sub);
  if (!user?.isActive || !isRole(user.role)) return { ok: false, reason: "revoked" };
  const role = user.role;
  const projectIds = seesAllProjects(role) ? new Set<string>() : await projectIdsOf(ctx, claims.sub);
  return {
    ok: true,
    auth: {
      userId: claims.sub,
      sessionId: claims.sid,
      email: user.email,
      // The role is read from the database, so a role change applies at once.
      role,
      projectIds,
      expiresAt: claims.exp,
    },
  };
}

export async function projectIdsOf(ctx: ServiceContext, userId: string): Promise<Set<string>> {
  return new Set(await ctx.store.identity.projectIdsOf(userId));
}

/** True while the session behind `sessionId` is live (MQTT connections re-check with this). */
export async function sessionIsLive(ctx: ServiceContext, sessionId: string): Promise<boolean> {
  const state = await ctx.store.identity.sessionState(sessionId);
  return Boolean(state && !state.revokedAt && state.isActive);
}
