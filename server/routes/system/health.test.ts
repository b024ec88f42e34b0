import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../../app.ts";
import type { HealthProbes, HealthReport } from "../../services/system/health.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";

describe("GET /health over real HTTP", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  it("is public and reports ok with a measured database probe", async () => {
    const before = Math.floor(process.uptime());
    const res = await t.request<HealthReport>("/health");
    const after = Math.floor(process.uptime());
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = res.body;
    expect(body.status).toBe("ok");
    expect(body.version).toBe("1.0.0");
    expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
    expect(Number.isInteger(body.uptime_seconds)).toBe(true);
    // Since process start, not since the server started: the process began before this test.
    expect(body.uptime_seconds).toBeGreaterThanOrEqual(before);
    expect(body.uptime_seconds).toBeLessThanOrEqual(after);
    expect(body.services.database.status).toBe("ok");
    expect(Number.isInteger(body.services.database.latency_ms)).toBe(true);
    expect(body.services.database.message).toBeNull();
    expect(body.services.api.status).toBe("ok");
    // The real server runs the embedded broker, so the report includes it.
    expect(body.services.mqtt?.status).toBe("ok");
    // The agent executables: none in the test server's folder, and it builds none (AGENT_BUILD=off).
    expect(body.agent_build).toMatchObject({ state: "unavailable", built: [], progress: null, error: null });
    expect(body.agent_build?.message).toMatch(
      /AGENT_BUILD is off\. An administrator runs npm run build:agent/,
    );
    expect(Object.keys(body).sort()).toEqual([
      "agent_build",
      "services",
      "status",
      "timestamp",
      "uptime_seconds",
      "version",
    ]);
  });

  it("probes the database on every call: a closed database answers 503 error", async () => {
    const own = await TestServer.start();
    try {
      expect((await own.request("/health")).status).toBe(200);
      await tableProbe(own.server).loseDatabase();
      const res = await own.request<HealthReport>("/health");
      expect(res.status).toBe(503);
      expect(res.body.status).toBe("error");
      expect(res.body.services.database.status).toBe("error");
      expect(res.body.services.database.message).toMatch(/^database unavailable: /);
      expect(res.headers.get("x-api-version")).toBe("1");
    } finally {
      await own.stop();
    }
  });
});

describe("GET /health status rules (injected probes)", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());
  afterEach(() => vi.useRealTimers());

  async function health(probes: HealthProbes): Promise<{ status: number; body: HealthReport }> {
    const app = createApp({ ctx: t.server.context, health: probes });
    const res = await app.request("/health");
    return { status: res.status, body: (await res.json()) as HealthReport };
  }

  it("a probe slower than 250 ms degrades, still 200, and reports the latency", async () => {
    const res = await health({ database: () => new Promise((resolve) => setTimeout(resolve, 300)) });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("degraded");
    expect(res.body.services.database.status).toBe("ok");
    expect(res.body.services.database.latency_ms).toBeGreaterThanOrEqual(290);
    expect(res.body.services.database.message).toMatch(/slow/);
  });

  it("a probe just under the threshold is ok", async () => {
    const res = await health({ database: () => new Promise((resolve) => setTimeout(resolve, 100)) });
    expect(res.body.status).toBe("ok");
  });

  it("a failing probe is error with HTTP 503 and names the cause", async () => {
    const res = await health({
      database: () => {
        throw new Error("disk I/O error");
      },
    });
    expect(res.status).toBe(503);
    expect(res.body.status).toBe("error");
    expect(res.body.services.database).toMatchObject({
      status: "error",
      message: "database unavailable: disk I/O error",
    });
    expect(res.body.services.api.status).toBe("ok");
  });

  it("a probe that never answers fails after 2 s", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const pending = health({ database: () => new Promise<void>(() => {}) });
    await vi.advanceTimersByTimeAsync(2000);
    const res = await pending;
    expect(res.status).toBe(503);
    expect(res.body.services.database.message).toBe("database unavailable: no answer within 2000 ms");
  });

  it("adds services.mqtt only with a broker; a down broker degrades", async () => {
    const up = await health({ broker: { isUp: () => true } });
    expect(up.status).toBe(200);
    expect(up.body.status).toBe("ok");
    expect(up.body.services.mqtt).toEqual({ status: "ok", latency_ms: null, message: null });

    const down = await health({ broker: { isUp: () => false } });
    expect(down.status).toBe(200);
    expect(down.body.status).toBe("degraded");
    expect(down.body.services.mqtt?.status).toBe("error");
  });

  it("a failing database outranks a down broker", async () => {
    const res = await health({
      database: () => Promise.reject(new Error("gone")),
      broker: { isUp: () => false },
    });
    expect(res.status).toBe(503);
    expect(res.body.status).toBe("error");
  });
});
