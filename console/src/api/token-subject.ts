/**
 * The user id (`sub`) in an access token's payload (RFC 7519 §4.1.2), read without verifying:
 * the API verifies every call, and the console only needs to know whose account it shows.
 */
export function tokenSubject(token: string): string | null {
  const payload = token.split(".")[1];
  if (!payload) return null;
  try {
    const base64 = payload.replace(/-/g, "+").replace(/_/g, "/");
    const claims: unknown = JSON.parse(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, "=")));
    const sub = typeof claims === "object" && claims !== null ? Reflect.get(claims, "sub") : undefined;
    return typeof sub === "string" ? sub : null;
  } catch {
    return null;
  }
}
