import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../testing/harness.ts";
import { createMetricsRegistry, httpMetrics } from "./metrics.ts";

/** The value of one series in Prometheus text, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const set = line.slice(name.length + 1, line.indexOf("}"));
    const parts = set.split(",");
    if (wanted.every((w) => parts.includes(w)) && parts.length === wanted.length) {
      return Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return undefined;
}

describe("httpMetrics route labels", () => {
  async function scrape(paths: [string, string?][]): Promise<string> {
    const registry = createMetricsRegistry();
    const app = new Hono();
    app.use("*", httpMetrics(registry));
    app.use("/things/*", async (_c, next) => next());
    const things = new Hono();
    things.get("/:id", (c) => c.json({ id: c.req.param("id") }));
    things.delete("/:id", (c) => c.body(null, 204));
    app.route("/things", things);
    for (const [path, method] of paths) await app.request(path, { method: method ?? "GET" });
    return registry.metrics();
  }

  it("labels by the matched pattern, not the concrete path", async () => {
    const text = await scrape([["/things/1"], ["/things/2"], ["/things/3", "DELETE"]]);
    const get = { method: "GET", route: "/things/:id", status: "200" };
    expect(sample(text, "http_requests_total", get)).toBe(2);
    expect(
      sample(text, "http_requests_total", { method: "DELETE", route: "/things/:id", status: "204" }),
    ).toBe(1);
    expect(sample(text, "http_request_duration_seconds_count", get)).toBe(2);
    expect(text).not.toContain('route="/things/1"');
  });

  it("requests that reach no endpoint (even through path middleware) are 'unmatched'", async () => {
    const text = await scrape([["/nope"], ["/things/1/deeper"], ["/things/1", "PUT"]]);
    expect(sample(text, "http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(2);
    expect(sample(text, "http_requests_total", { method: "PUT", route: "unmatched", status: "404" })).toBe(1);
  });

  it("folds unknown methods into OTHER to bound cardinality", async () => {
    const text = await scrape([["/things/1", "PROPFIND"]]);
    expect(sample(text, "http_requests_total", { method: "OTHER", route: "unmatched", status: "404" })).toBe(
      1,
    );
  });

  it("a second app on the same registry reuses the instruments", () => {
    const registry = createMetricsRegistry();
    httpMetrics(registry);
    expect(() => httpMetrics(registry)).not.toThrow();
  });
});

describe("GET /metrics over real HTTP", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    [a, b] = await Promise.all([TestServer.start(), TestServer.start()]);
  });
  afterAll(async () => Promise.all([a.stop(), b.stop()]));

  it("serves Prometheus text with process metrics and the HTTP series, publicly", async () => {
    await a.request("/health");
    await a.request("/health");
    await a.request("/api/auth/login", { body: {} });
    await a.request("/no/such/path");
    const res = await a.request("/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = res.text;
    expect(text).toContain("# TYPE process_cpu_user_seconds_total counter");
    expect(text).toContain("# TYPE nodejs_heap_size_used_bytes gauge");
    expect(text).toContain("# TYPE http_requests_total counter");
    expect(text).toContain("# TYPE http_request_duration_seconds histogram");
    expect(sample(text, "http_requests_total", { method: "GET", route: "/health", status: "200" })).toBe(2);
    expect(
      sample(text, "http_requests_total", { method: "POST", route: "/api/auth/login", status: "400" }),
    ).toBe(1);
    expect(sample(text, "http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1);
    expect(
      sample(text, "http_request_duration_seconds_bucket", {
        method: "GET",
        route: "/health",
        status: "200",
        le: "+Inf",
      }),
    ).toBe(2);
  });

  it("each server has its own registry", async () => {
    await b.request("/health");
    const text = (await b.request("/metrics")).text;
    expect(sample(text, "http_requests_total", { method: "GET", route: "/health", status: "200" })).toBe(1);
    expect(b.server.context.metrics).not.toBe(a.server.context.metrics);
  });
});
