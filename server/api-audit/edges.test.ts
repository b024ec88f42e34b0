import { describe, expect, it } from "vitest";
import { AUTH_BODY_MAX_BYTES, REQUEST_BODY_MAX_BYTES } from "../http/body-limit.ts";
import { auditSetup } from "./fixtures.ts";
import { contractProblems, inGroups, send } from "./http-audit.ts";
import { fillPath } from "./openapi-model.ts";
import { baseInput } from "./requests.ts";

/*
 * The edges of the HTTP surface: methods a path does not declare, HEAD and OPTIONS, root paths,
 * unknown paths, and bodies too large to read. Spec §9: every response carries the version
 * headers; spec §7: every error is {error, message}; never a 5xx.
 */

const audit = await auditSetup();
const { t, operations } = audit;

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

describe("methods a path does not declare", () => {
  it("answer a 4xx in the error shape (no undocumented operation behind them)", async () => {
    const byPath = new Map<string, Set<string>>();
    for (const op of operations) byPath.set(op.path, (byPath.get(op.path) ?? new Set()).add(op.method));
    const probes = [...byPath].flatMap(([path, declared]) => {
      const op = operations.find((o) => o.path === path);
      const values = op ? baseInput(op, audit.ids).pathValues : {};
      return METHODS.filter((m) => !declared.has(m)).map((method) => ({
        method,
        path: fillPath(path, values),
      }));
    });
    const problems = await inGroups(probes, 8, async ({ method, path }) => {
      const res = await send(
        t,
        { method, path, ...(method === "GET" ? {} : { rawBody: "{}" }) },
        audit.token,
      );
      const found = contractProblems(res);
      if (res.status < 400) found.push(`answered ${res.status}: an operation the document does not list`);
      return found.map((p) => `${method} ${path}: ${p}`);
    });
    expect(problems.flat()).toEqual([]);
  });
});

describe("HEAD, OPTIONS, root and unknown paths", () => {
  it("carry the version headers and answer errors in the error shape", async () => {
    const probes = [
      { method: "GET", path: "/health" },
      { method: "GET", path: "/metrics" },
      { method: "GET", path: "/docs" },
      { method: "GET", path: "/docs/openapi.yaml" },
      { method: "GET", path: "/docs/openapi.json" },
      { method: "GET", path: "/no-such-path" },
      { method: "GET", path: "/api/no-such-path" },
      { method: "POST", path: "/api" },
      { method: "HEAD", path: "/health" },
      { method: "HEAD", path: "/api/edge/projects" },
      { method: "OPTIONS", path: "/api/edge/projects" },
      { method: "OPTIONS", path: "/api/auth/login" },
      { method: "GET", path: "/api/edge/projects/" },
      { method: "GET", path: "//api//edge//projects" },
      { method: "GET", path: `/api/edge/projects?${"q=1&".repeat(2000)}` },
    ];
    const problems = await inGroups(probes, 8, async ({ method, path }) => {
      const res = await send(t, { method, path }, audit.token);
      // HEAD carries no body to check; its headers still count.
      const found =
        method === "HEAD"
          ? contractProblems({ ...res, status: Math.min(res.status, 399) })
          : contractProblems(res);
      return found.map((p) => `${method} ${path.slice(0, 60)}: ${p}`);
    });
    expect(problems.flat()).toEqual([]);
  });
});

async function postStream(path: string, bytes: number, authToken?: string): Promise<Response> {
  const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) controller.enqueue(new TextEncoder().encode('{"name":"'));
      if (sent >= bytes) {
        controller.enqueue(new TextEncoder().encode('"}'));
        controller.close();
        return;
      }
      controller.enqueue(chunk);
      sent += chunk.length;
    },
  });
  return fetch(`${t.baseUrl}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(authToken ? { authorization: `Bearer ${authToken}` } : {}),
    },
    body,
    duplex: "half",
  });
}

describe("bodies too large to read", () => {
  it("are refused with 413 on the public auth operations (by Content-Length and when streamed)", async () => {
    const big = JSON.stringify({ email: "a@caudal.test", password: "p".repeat(AUTH_BODY_MAX_BYTES) });
    for (const path of ["/api/auth/login", "/api/auth/register", "/api/auth/setup/register"]) {
      const res = await t.request(path, { rawBody: big });
      expect(contractProblems(res)).toEqual([]);
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ error: "PayloadTooLarge" });
      const streamed = await postStream(path, AUTH_BODY_MAX_BYTES + 1024);
      expect(streamed.status).toBe(413);
      await streamed.body?.cancel();
    }
  });

  it("are refused with 413 everywhere else above the largest body an operation takes", async () => {
    const res = await t.request("/api/edge/projects", {
      token: audit.token,
      rawBody: JSON.stringify({ name: "n".repeat(REQUEST_BODY_MAX_BYTES) }),
    });
    expect(res.status).toBe(413);
    expect(contractProblems(res)).toEqual([]);
    const streamed = await postStream("/api/edge/projects", REQUEST_BODY_MAX_BYTES + 1024, audit.token);
    expect(streamed.status).toBe(413);
    await streamed.body?.cancel();
  });

  it("below the limit still reach validation (a 400 naming the field)", async () => {
    const res = await t.request("/api/auth/login", {
      rawBody: JSON.stringify({ email: "a@caudal.test", password: "p".repeat(1000) }),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ message: expect.stringContaining("password") });
  });
});
