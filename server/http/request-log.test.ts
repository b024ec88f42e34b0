import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../logger.ts";
import { TestServer } from "../testing/harness.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

type RequestLine = {
  time: string;
  level: string;
  msg: string;
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  user_id?: string;
};

describe("request ids and the request log", () => {
  let t: TestServer;
  const lines: string[] = [];

  beforeAll(async () => {
    t = await TestServer.start({}, { logger: createLogger("debug", (line) => lines.push(line)) });
  });
  afterAll(async () => t.stop());

  /** Every line is one JSON object (the logger's contract); the request lines for `requestId`. */
  function requestLines(requestId: string): RequestLine[] {
    return lines
      .map((line) => {
        expect(line.endsWith("\n")).toBe(true);
        expect(line.slice(0, -1)).not.toContain("\n");
        return JSON.parse(line) as RequestLine;
      })
      .filter((entry) => entry.msg === "request" && entry.request_id === requestId);
  }

  it("generates an id when none is sent, on success and error responses alike", async () => {
    const ids = new Set<string>();
    for (const path of ["/health", "/nope", "/api/auth/logout"]) {
      const res = await t.request(path, { method: path === "/api/auth/logout" ? "POST" : "GET" });
      const id = res.headers.get("x-request-id") ?? "";
      expect(id, path).toMatch(UUID);
      ids.add(id);
    }
    expect(ids.size).toBe(3);
  });

  it("echoes a well-formed incoming X-Request-Id and replaces a malformed one", async () => {
    const echoed = await t.request("/health", { headers: { "x-request-id": "edge-gw.42_A" } });
    expect(echoed.headers.get("x-request-id")).toBe("edge-gw.42_A");
    for (const bad of ["has space", "x".repeat(65), "semi;colon", "<script>"]) {
      const res = await t.request("/health", { headers: { "x-request-id": bad } });
      expect(res.headers.get("x-request-id"), bad).toMatch(UUID);
    }
  });

  it("logs one JSON line per request with the path only: no query string, no Authorization", async () => {
    const secretQuery = "token=eyJsecret-query-token";
    const secretBearer = "eyJsecret-bearer-token";
    const res = await t.request(`/api/auth/logout?${secretQuery}&project_id=p1`, {
      method: "POST",
      token: secretBearer,
      headers: { "x-request-id": "log-test-1" },
    });
    expect(res.status).toBe(401);
    const [line, ...rest] = requestLines("log-test-1");
    expect(rest).toHaveLength(0);
    expect(line).toMatchObject({
      level: "info",
      msg: "request",
      method: "POST",
      path: "/api/auth/logout",
      status: 401,
    });
    expect(typeof line?.duration_ms).toBe("number");
    const all = lines.join("");
    expect(all).not.toContain("eyJsecret");
    expect(all).not.toContain("project_id=p1");
  });

  it("names the user of an authenticated request", async () => {
    const admin = await t.admin();
    const res = await t.request("/api/auth/logout", {
      method: "POST",
      token: admin.token,
      headers: { "x-request-id": "log-test-2" },
    });
    expect(res.status).toBe(200);
    const [line] = requestLines("log-test-2");
    expect(line?.user_id).toMatch(UUID);
    expect(lines.join("")).not.toContain(admin.token);
  });
});

describe("REQUEST_LOG_FILE: the request log in a file of its own (npm start)", () => {
  let t: TestServer;
  const console: string[] = [];
  let file: string;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "caudal-request-log-"));
    file = join(dir, "logs", "requests.log");
    t = await TestServer.start(
      { REQUEST_LOG_FILE: file, LOG_LEVEL: "info" },
      { logger: createLogger("info", (line) => console.push(line)) },
    );
  });
  afterAll(async () => t.stop());

  it("appends the request lines to the file, mode 0600, and none to the console", async () => {
    const res = await t.request("/health?token=eyJsecret-in-query", {
      headers: { authorization: "Bearer eyJsecret-in-header", "x-request-id": "to-the-file" },
    });
    expect(res.status).toBe(200);
    const deadline = Date.now() + 2000;
    while (!(existsSync(file) && readFileSync(file, "utf8").includes("to-the-file"))) {
      if (Date.now() > deadline) throw new Error("no request line in the file");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const text = readFileSync(file, "utf8");
    const entry = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RequestLine)
      .find((e) => e.request_id === "to-the-file");
    expect(entry).toMatchObject({ msg: "request", method: "GET", path: "/health", status: 200 });
    expect(text).not.toContain("eyJsecret");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(console.some((l) => l.includes('"msg":"request"'))).toBe(false);
  });
});
