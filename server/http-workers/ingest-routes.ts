/**
 * The requests HTTP worker threads answer themselves: POST /api/telemetry and POST
 * /api/telemetry/batch. Everything else (other routes, WebSocket upgrades, /health, /metrics) is
 * the main thread's.
 */
const INGEST_PATHS = new Set(["/api/telemetry", "/api/telemetry/batch"]);

export function isIngestRequest(method: string | undefined, url: string | undefined): boolean {
  if (method !== "POST" || url === undefined) return false;
  const query = url.indexOf("?");
  return INGEST_PATHS.has(query === -1 ? url : url.slice(0, query));
}

/** Longest request line this module looks at: "POST /api/telemetry/batch?" and a little. */
const SNIFF_BYTES = 64;

/**
 * What a connection's first bytes say about its first request (RFC 9112 §3: method SP
 * request-target SP version): `ingest` for a worker, `other` for the main thread, `more` while
 * the request line is still incomplete. Anything unusual (absolute-form targets, leading blank
 * lines) is `other`: the main thread serves every route, so it is never wrong, only not parallel.
 */
export function firstRequestKind(bytes: Buffer): "ingest" | "other" | "more" {
  const head = bytes.toString("latin1", 0, Math.min(bytes.length, SNIFF_BYTES));
  const space = head.indexOf(" ", 5);
  if (!head.startsWith("POST /".slice(0, head.length))) return "other";
  if (space === -1) return head.length >= SNIFF_BYTES ? "other" : "more";
  return isIngestRequest("POST", head.slice(5, space)) ? "ingest" : "other";
}
