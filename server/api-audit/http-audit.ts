import type { ApiResponse, TestServer } from "../testing/harness.ts";
import type { Operation } from "./openapi-model.ts";
import type { AuditRequest, Case } from "./requests.ts";
import { member, violation } from "./schema-check.ts";

/** What every response must carry (spec §9) and what every error must look like (spec §7). */
export function contractProblems(res: ApiResponse): string[] {
  const problems: string[] = [];
  if (res.headers.get("x-api-version") !== "1")
    problems.push(`X-API-Version is ${res.headers.get("x-api-version")}`);
  if (res.headers.get("x-powered-by") !== "Caudal/1.0")
    problems.push(`X-Powered-By is ${res.headers.get("x-powered-by")}`);
  if (res.status >= 500) problems.push(`server error ${res.status}: ${res.text.slice(0, 200)}`);
  if (res.status >= 400) {
    const shaped =
      typeof member(res.body, "error") === "string" && typeof member(res.body, "message") === "string";
    if (!shaped) problems.push(`error body is not {error, message}: ${res.text.slice(0, 200)}`);
  }
  return problems;
}

export async function send(t: TestServer, req: AuditRequest, token?: string): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...req.headers };
  if (req.rawBody !== undefined) headers["content-type"] ??= "application/json";
  return t.request(req.path, {
    method: req.method,
    ...(req.rawBody !== undefined ? { rawBody: req.rawBody } : {}),
    ...(token ? { token } : {}),
    headers,
  });
}

/**
 * A success must be one the operation declares, and its JSON body must match the declared schema
 * (OpenAPI is generated from the route definitions, but nothing checks the handlers against it).
 */
export function responseProblems(op: Operation, res: ApiResponse): string[] {
  if (res.status >= 400) return [];
  if (!op.declaredStatuses.includes(res.status)) return [`${res.status} is not a declared response`];
  const schema = op.responseSchemas.get(res.status);
  if (!schema || !res.headers.get("content-type")?.includes("application/json")) return [];
  const bad = violation(schema, res.body);
  return bad ? [`${res.status} body does not match its schema: ${bad}`] : [];
}

/** Runs `work` over `items`, at most `width` at a time, keeping the order of the results. */
export async function inGroups<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      const item = items[i] as T;
      results[i] = await work(item);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** Everything wrong with the answer to one case; empty when it is right. */
export function caseProblems(c: Case, res: ApiResponse): string[] {
  const problems = [...contractProblems(res), ...responseProblems(c.op, res)];
  const e = c.expect;
  if (e.kind === "reject" && (res.status < 400 || res.status >= 500))
    problems.push(`expected 4xx, got ${res.status}`);
  if (e.kind === "status" && res.status !== e.status)
    problems.push(`expected ${e.status}, got ${res.status}`);
  if (
    e.kind === "absent" &&
    res.status !== 404 &&
    !(res.status === 200 && Array.isArray(res.body) && res.body.length === 0)
  ) {
    problems.push(`expected 404 or an empty list, got ${res.status}: ${res.text.slice(0, 120)}`);
  }
  // CONTRIBUTING: "Invalid input is a 400 naming the field".
  if (
    c.field &&
    e.kind === "reject" &&
    res.status === 400 &&
    typeof res.body === "object" &&
    res.body !== null
  ) {
    const message = String(member(res.body, "message") ?? "");
    const leaf =
      c.field
        .split(".")
        .filter((p) => !/^\d+$/.test(p))
        .at(-1) ?? c.field;
    if (!message.includes(leaf)) problems.push(`400 message does not name ${leaf}: ${message.slice(0, 160)}`);
  }
  return problems.map((p) => `${c.op.id} [${c.label}]: ${p}`);
}
