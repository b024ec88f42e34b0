import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTree, idSource, startAuditServer } from "./fixtures.ts";
import { contractProblems, inGroups, send } from "./http-audit.ts";
import { apiOperations, fetchDocument, type Operation } from "./openapi-model.ts";
import { type BaseInput, baseInput, buildRequest } from "./requests.ts";

/*
 * Spec §5 and §7.2: every operation the document marks as protected answers 401 without a valid
 * access token — none, a malformed one, a forged one, one whose session ended (logout, spec §5.2),
 * one of a deactivated user, one signed with the server's key but without exp, iat or sub — before
 * it looks at the input (a valid body and a broken one alike), so a caller without a session learns
 * nothing about the resource or the input format.
 */

const t = await startAuditServer();
const operations = apiOperations(await fetchDocument(t)).filter((op) => op.security !== "public");

type Credential = { label: string; token: string | undefined; scheme?: string };
const credentials: Credential[] = [];
let ids: ReturnType<typeof idSource>;

/** A token whose session was ended through POST /api/auth/logout. */
async function loggedOutToken(): Promise<string> {
  const admin = await t.admin();
  const login = await t.login(admin.email, admin.password);
  const token = login.body.token;
  const out = await t.request("/api/auth/logout", { method: "POST", token });
  if (out.status !== 200) throw new Error(`logout failed: ${out.status} ${out.text}`);
  return token;
}

/** A token of a user deactivated after logging in ("false ends every session of the user"). */
async function deactivatedToken(): Promise<string> {
  const user = await t.userWithRole("admin");
  const res = await t.request(`/api/admin/users/${user.id}`, {
    method: "PUT",
    token: (await t.admin()).token,
    body: {
      email: user.email,
      name: "Deactivated",
      role: "admin",
      password: user.password,
      is_active: false,
    },
  });
  if (res.status !== 200) throw new Error(`deactivate failed: ${res.status} ${res.text}`);
  return user.token;
}

/** The signature of a valid token of this server replaced: the header and claims stay plausible. */
function forged(valid: string): string {
  const [header, claims] = valid.split(".");
  return `${header}.${claims}.${Buffer.from("not the signature").toString("base64url")}`;
}

/**
 * A live session's token signed with the server's own key, but without `claim`: every token the
 * server issues has exp, iat and sub, and one without an expiry would never expire.
 */
async function lacking(valid: string, claim: "exp" | "iat" | "sub"): Promise<string> {
  const claims = JSON.parse(Buffer.from(valid.split(".")[1] ?? "", "base64url").toString("utf8"));
  delete claims[claim];
  return new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(t.server.context.keys.jwt);
}

/** The claims of a valid token under an `alg: none` header and no signature (RFC 7519 §6). */
function unsigned(valid: string): string {
  const header = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
  return `${header}.${valid.split(".")[1]}.`;
}

beforeAll(async () => {
  const admin = await t.admin();
  ids = idSource(await buildTree(t, "A"), t.clock.now().getTime());
  credentials.push(
    { label: "no token", token: undefined },
    { label: "a garbage token", token: "garbage" },
    { label: "a JWT of another key", token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl" },
    { label: "a forged signature", token: forged(admin.token) },
    { label: "an unsigned (alg none) token", token: unsigned(admin.token) },
    { label: "the Basic scheme", token: admin.token, scheme: "Basic" },
    { label: "a logged-out session's token", token: await loggedOutToken() },
    { label: "a deactivated user's token", token: await deactivatedToken() },
    { label: "a token without exp", token: await lacking(admin.token, "exp") },
    { label: "a token without iat", token: await lacking(admin.token, "iat") },
    { label: "a token without sub", token: await lacking(admin.token, "sub") },
  );
}, 60_000);

afterAll(() => t.stop());

/** The request with the credential where the operation expects it (header or `?token=`). */
function requestWith(op: Operation, input: BaseInput, cred: Credential, rawBody?: string) {
  if (op.security === "queryToken") {
    const query = cred.token && !cred.scheme ? { ...input.query, token: cred.token } : input.query;
    return { req: buildRequest(op, { ...input, query }), headers: {} };
  }
  const headers: Record<string, string> = cred.token
    ? { authorization: `${cred.scheme ?? "Bearer"} ${cred.token}` }
    : {};
  return { req: buildRequest(op, input, rawBody === undefined ? {} : { rawBody }), headers };
}

describe.each(operations.map((op): [string, Operation] => [op.id, op]))("%s", (_id, op) => {
  it("answers 401 in the error shape to every request without a valid token", async () => {
    const input = baseInput(op, ids);
    const variants = credentials.flatMap((cred) => [
      { cred, rawBody: undefined as string | undefined },
      ...(op.body ? [{ cred, rawBody: "{not json" }] : []),
    ]);
    const problems = await inGroups(variants, 8, async ({ cred, rawBody }) => {
      const { req, headers } = requestWith(op, input, cred, rawBody);
      const res = await send(t, { ...req, headers: { ...req.headers, ...headers } });
      const found = contractProblems(res);
      if (res.status !== 401) found.push(`expected 401, got ${res.status}: ${res.text.slice(0, 120)}`);
      return found.map((p) => `${cred.label}${rawBody ? " (bad body)" : ""}: ${p}`);
    });
    expect(problems.flat()).toEqual([]);
  });
});
