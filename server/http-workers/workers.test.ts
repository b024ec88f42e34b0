import { randomBytes, randomUUID } from "node:crypto";
import { Agent, request } from "node:http";
import { connect } from "node:net";
import { availableParallelism } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadServerConfig } from "../config.ts";
import { type Field, field, storedCount, storedPoints } from "../testing/fixtures/telemetry-fixtures.ts";
import { type ApiResponse, TestServer } from "../testing/harness.ts";
import { tableProbe } from "../testing/table-probe.ts";

type Sent = { status: number; headers: Record<string, string | string[] | undefined>; text: string };

/** A request on a given keep-alive agent, so that tests choose which connection carries it. */
function send(
  t: TestServer,
  agent: Agent,
  method: string,
  path: string,
  options: { token?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) {
      headers["content-type"] ??= "application/json";
      headers["content-length"] = String(Buffer.byteLength(options.body));
    }
    const req = request(`${t.baseUrl}${path}`, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString(),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** http_requests_total of the worker threads alone, for one route and status. */
async function workerRequests(t: TestServer, route: string, status: number): Promise<number> {
  const threads = (await t.server.httpWorkers?.metricsJson()) ?? [];
  let total = 0;
  for (const json of threads) {
    for (const metric of json as {
      name: string;
      values: { labels: Record<string, string>; value: number }[];
    }[]) {
      if (metric.name !== "http_requests_total") continue;
      for (const v of metric.values)
        if (v.labels.route === route && v.labels.status === String(status)) total += v.value;
    }
  }
  return total;
}

/** Starts the server's worker threads and waits until `count` serve. */
async function serving(t: TestServer, count: number): Promise<void> {
  const pool = t.server.httpWorkers;
  pool?.start();
  for (let i = 0; i < 1000 && (pool?.threadIds().length ?? 0) < count; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(pool?.threadIds()).toHaveLength(count);
}

const payload = (assetId: string, ts: number, value = 1) =>
  JSON.stringify({
    asset_id: assetId,
    timestamp: new Date(ts).toISOString(),
    readings: [
      { variable: "pressure", value, unit: "psi" },
      { variable: "temperature", value: value + 1 },
    ],
  });

describe("HTTP worker threads", () => {
  let workers: TestServer;
  let single: TestServer;
  let fw: Field;
  let fs: Field;
  beforeAll(async () => {
    [workers, single] = await Promise.all([
      TestServer.start({ HTTP_WORKERS: "2" }),
      TestServer.start({ HTTP_WORKERS: "0" }),
    ]);
    [fw, fs] = await Promise.all([field(workers), field(single)]);
    // They would start with the first ingest connection; these tests want them serving from the first.
    await serving(workers, 2);
  });
  afterAll(async () => {
    await Promise.all([workers?.stop(), single?.stop()]);
  });

  it("answers each bad field with the same 400 (and 401, 403, 404, 413) as the main thread alone", async () => {
    const now = Date.now();
    const cases = (f: Field): { token?: string; body: string; path?: string }[] => [
      { token: f.operador, body: "{not json" },
      {
        token: f.operador,
        body: JSON.stringify({ asset_id: "nope", readings: [{ variable: "a", value: 1 }] }),
      },
      { token: f.operador, body: JSON.stringify({ asset_id: f.assetId, readings: [] }) },
      {
        token: f.operador,
        body: JSON.stringify({ asset_id: f.assetId, readings: [{ variable: "", value: "x" }] }),
      },
      {
        token: f.operador,
        body: JSON.stringify({
          asset_id: f.assetId,
          readings: [
            { variable: "a", value: 1 },
            { variable: "a", value: 2 },
          ],
        }),
      },
      {
        token: f.operador,
        body: JSON.stringify({
          asset_id: f.assetId,
          timestamp: "yesterday",
          readings: [{ variable: "a", value: 1 }],
        }),
      },
      // Checked by the ingest service on the main thread, answered by the worker.
      {
        token: f.operador,
        body: JSON.stringify({
          asset_id: f.assetId,
          timestamp: new Date(now + 3600_000).toISOString(),
          readings: [{ variable: "a", value: 1 }],
        }),
      },
      {
        token: f.operador,
        body: JSON.stringify({ asset_id: f.foreignAssetId, readings: [{ variable: "a", value: 1 }] }),
      },
      {
        token: f.operador,
        body: JSON.stringify({ asset_id: randomUUID(), readings: [{ variable: "a", value: 1 }] }),
      },
      {
        token: f.operador,
        body: JSON.stringify({
          asset_id: f.assetId,
          readings: Array.from({ length: 10_001 }, (_, i) => ({ variable: `v${i}`, value: i })),
        }),
      },
      { body: JSON.stringify({ asset_id: f.assetId, readings: [{ variable: "a", value: 1 }] }) },
      { token: "not-a-token", body: "{}" },
      {
        token: f.reader,
        body: JSON.stringify({ asset_id: f.assetId, readings: [{ variable: "a", value: 1 }] }),
      },
      { token: f.operador, path: "/api/telemetry/batch", body: JSON.stringify({ items: [{ asset_id: 3 }] }) },
      {
        token: f.operador,
        path: "/api/telemetry/batch",
        body: JSON.stringify({
          items: [
            { asset_id: f.assetId, readings: [{ variable: "a", value: 1 }] },
            { asset_id: f.foreignAssetId, readings: [{ variable: "a", value: 1 }] },
          ],
        }),
      },
    ];
    const answers = async (t: TestServer, f: Field) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const out: { status: number; body: unknown }[] = [];
      for (const c of cases(f)) {
        const res = await send(t, agent, "POST", c.path ?? "/api/telemetry", {
          body: c.body,
          ...(c.token ? { token: c.token } : {}),
        });
        const body = JSON.parse(res.text) as { error: string; message: string };
        // The two servers' clocks are read a few ms apart; nothing else may differ.
        const message = body.message.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<now>");
        out.push({ status: res.status, body: { ...body, message } });
        expect(res.headers["x-api-version"]).toBe("1");
        expect(res.headers["cache-control"]).toBe("no-store");
      }
      agent.destroy();
      return out;
    };
    const before = await workerRequests(workers, "/api/telemetry", 400);
    const [fromWorkers, fromMain] = await Promise.all([answers(workers, fw), answers(single, fs)]);
    expect(fromWorkers).toEqual(fromMain);
    expect(fromMain.map((a) => a.status)).toEqual([
      400, 400, 400, 400, 400, 400, 400, 404, 404, 413, 401, 401, 403, 400, 404,
    ]);
    // Served by a worker thread, not forwarded to the main thread.
    expect(await workerRequests(workers, "/api/telemetry", 400)).toBe(before + 7);
  });

  it("stores what a worker acknowledged, and counts it in /metrics", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const asset = await workers.asset(fw.projectId);
    const ts = Date.now() - 60_000;
    const res = await send(workers, agent, "POST", "/api/telemetry", {
      token: fw.operador,
      body: payload(asset, ts),
    });
    expect(res.status).toBe(201);
    expect(JSON.parse(res.text)).toEqual({ accepted: 2, duplicates: 0 });
    expect(await storedCount(workers, asset)).toBe(2);
    // The same connection now asks for another route: the main thread's app answers it.
    const latest = await send(workers, agent, "GET", `/api/telemetry/${asset}`, { token: fw.operador });
    expect(latest.status).toBe(200);
    expect(JSON.parse(latest.text)).toEqual([
      {
        asset_id: asset,
        timestamp: new Date(ts).toISOString(),
        readings: [
          { variable: "pressure", value: 1, unit: "psi" },
          { variable: "temperature", value: 2 },
        ],
      },
    ]);
    const metrics = await send(workers, agent, "GET", "/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(
      /http_requests_total\{method="POST",route="\/api\/telemetry",status="201"\} [1-9]/,
    );
    expect(metrics.text).toMatch(/process_cpu_seconds_total/);
    agent.destroy();
  });

  it("refuses a revoked session and an expired token on a worker", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const user = await workers.userWithRole("operador", [fw.projectId]);
    const body = payload(fw.assetId, Date.now() - 30_000, 7);
    expect((await send(workers, agent, "POST", "/api/telemetry", { token: user.token, body })).status).toBe(
      201,
    );
    // Logging out (forwarded to the main thread on this same connection) ends the session.
    const logout = await send(workers, agent, "POST", "/api/auth/logout", { token: user.token, body: "{}" });
    expect(logout.status).toBe(200);
    const revoked = await send(workers, agent, "POST", "/api/telemetry", { token: user.token, body });
    expect(revoked.status).toBe(401);
    expect(JSON.parse(revoked.text)).toEqual({
      error: "Unauthorized",
      message: "the session behind this access token has ended",
    });
    const fresh = await workers.userWithRole("operador", [fw.projectId]);
    workers.clock.advance(16 * 60_000);
    try {
      const expired = await send(workers, agent, "POST", "/api/telemetry", { token: fresh.token, body });
      expect(expired.status).toBe(401);
      expect(JSON.parse(expired.text).error).toBe("TokenExpired");
    } finally {
      workers.clock.advance(-16 * 60_000);
    }
    agent.destroy();
  });

  it("forwards other requests on a worker's connection with their bodies, cookies and the client's address", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const user = await workers.userWithRole("operador", [fw.projectId]);
    expect(
      (
        await send(workers, agent, "POST", "/api/telemetry", {
          token: user.token,
          body: payload(fw.assetId, Date.now() - 20_000),
        })
      ).status,
    ).toBe(201);
    const login = await send(workers, agent, "POST", "/api/auth/login", {
      body: JSON.stringify({ email: user.email, password: user.password }),
    });
    expect(login.status).toBe(200);
    expect(String(login.headers["set-cookie"])).toMatch(/caudal_refresh=/);
    const { token } = JSON.parse(login.text) as { token: string };
    const sessionId = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString())
      .sid as string;
    const [session] = await tableProbe(workers.server).rows<{ ip: string | null }>("sessions", {
      id: sessionId,
    });
    expect(session?.ip).toMatch(/127\.0\.0\.1/);
    const missing = await send(workers, agent, "GET", "/api/no-such-route", { token });
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text).error).toBe("NotFound");
    agent.destroy();
  });

  it("streams a large answer of the main thread through a worker's connection, whole and in order", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const asset = await workers.asset(fw.projectId);
    const start = Date.now() - 6 * 3600_000;
    for (let block = 0; block < 4; block++) {
      const items = Array.from({ length: 1000 }, (_, i) => ({
        asset_id: asset,
        timestamp: new Date(start + (block * 1000 + i) * 1000).toISOString(),
        readings: Array.from({ length: 10 }, (_, v) => ({
          variable: `v${v}`,
          value: block * 1000 + i + v / 10,
        })),
      }));
      const res = await send(workers, agent, "POST", "/api/telemetry/batch", {
        token: fw.operador,
        body: JSON.stringify({ items }),
      });
      expect(res.status).toBe(201);
    }
    // The same connection now asks for 40,000 readings as CSV (well over a megabyte).
    const csvPath = `/api/telemetry/${asset}?format=csv`;
    const forwarded = await send(workers, agent, "GET", csvPath, { token: fw.operador });
    agent.destroy();
    const fresh = new Agent({ keepAlive: false });
    const direct = await send(workers, fresh, "GET", csvPath, { token: fw.operador });
    expect(forwarded.status).toBe(200);
    expect(forwarded.headers["content-type"]).toBe(direct.headers["content-type"]);
    expect(forwarded.text.length).toBeGreaterThan(1_000_000);
    expect(forwarded.text).toBe(direct.text);
  });

  it("answers pipelined requests on a worker's connection in order, forwarded ones included", async () => {
    const asset = await workers.asset(fw.projectId);
    const socket = connect(workers.server.port, "127.0.0.1");
    const received: Buffer[] = [];
    socket.on("data", (c: Buffer) => received.push(c));
    const post = (ts: number) => {
      const body = payload(asset, ts);
      return (
        `POST /api/telemetry HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${fw.operador}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
      );
    };
    const now = Date.now();
    socket.write(
      post(now - 3000) +
        `GET /api/telemetry/${asset}?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${fw.operador}\r\n\r\n` +
        post(now - 2000) +
        `GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    await new Promise((resolve) => socket.once("close", resolve));
    const text = Buffer.concat(received).toString("latin1");
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
    // Answers in order (RFC 9112 §9.3.2). As on the main thread alone, pipelined requests are
    // handled as they arrive: the GET need not see the POST before it, which may not be committed.
    expect(statuses).toEqual(["201", "200", "201", "200"]);
    expect(text).toMatch(
      /"accepted":2,"duplicates":0}[\s\S]*"accepted":2,"duplicates":0}[\s\S]*"status":"ok"/,
    );
  });

  it("gives a WebSocket upgrade on a worker's connection back to the main thread", async () => {
    const socket = connect(workers.server.port, "127.0.0.1");
    const received: Buffer[] = [];
    socket.on("data", (c: Buffer) => received.push(c));
    const text = () => Buffer.concat(received).toString("latin1");
    const until = async (test: () => boolean) => {
      for (let i = 0; i < 200 && !test(); i++) await new Promise((r) => setTimeout(r, 10));
      expect(test()).toBe(true);
    };
    const body = payload(fw.assetId, Date.now() - 10_000, 3);
    socket.write(
      `POST /api/telemetry HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${fw.operador}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await until(() => text().includes("\r\n\r\n{"));
    expect(text()).toMatch(/^HTTP\/1\.1 201/);
    received.length = 0;
    socket.write(
      `GET /api/ws/telemetry?token=${fw.operador} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n` +
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    );
    await until(() => text().includes("\r\n\r\n"));
    expect(text()).toMatch(/^HTTP\/1\.1 101/);
    socket.destroy();
  });

  it("survives a worker's crash: it is restarted, and no acknowledged point is lost", async () => {
    const pool = workers.server.httpWorkers;
    if (!pool) throw new Error("no worker threads");
    const asset = await workers.asset(fw.projectId);
    const start = Date.now() - 3600_000;
    const acknowledged = new Set<number>();
    let failures = 0;
    let next = 0;
    let stopAt = Number.POSITIVE_INFINITY;
    const client = async () => {
      let agent = new Agent({ keepAlive: true, maxSockets: 1 });
      while (next < stopAt) {
        const n = next++;
        try {
          const res = await send(workers, agent, "POST", "/api/telemetry", {
            token: fw.operador,
            body: payload(asset, start + n * 1000, n),
          });
          if (res.status === 201) acknowledged.add(n);
          else failures++;
        } catch {
          // The connection died with the worker: this request was never acknowledged.
          failures++;
          agent.destroy();
          agent = new Agent({ keepAlive: true, maxSockets: 1 });
        }
      }
      agent.destroy();
    };
    const clients = Array.from({ length: 8 }, client);
    while (acknowledged.size < 200) await new Promise((r) => setTimeout(r, 5));
    const [victim] = pool.threadIds();
    expect(await pool.terminateThread(victim ?? -1)).toBe(true);
    const afterCrash = acknowledged.size;
    while (acknowledged.size < afterCrash + 200) await new Promise((r) => setTimeout(r, 5));
    stopAt = next;
    await Promise.all(clients);
    expect(failures).toBeGreaterThan(0);
    // A new thread took the crashed one's place.
    await serving(workers, 2);
    expect(pool.threadIds()).not.toContain(victim);
    // Stored anywhere: raw rows, inbox rows, packed blocks.
    const stored = new Set(
      (await storedPoints(workers, asset))
        .filter((p) => p.variable === "pressure")
        .map((p) => (p.ts - start) / 1000),
    );
    for (const n of acknowledged) expect(stored.has(n)).toBe(true);
  });
});

describe("HTTP_WORKERS", () => {
  const key = randomBytes(32).toString("base64");

  it("is refused unless a whole number from 0 to 64, and defaults to one per core but two", () => {
    for (const bad of ["-1", "65", "1.5", "many"]) {
      expect(() => loadServerConfig({ TOTP_SECRET_ENCRYPTION_KEY: key, HTTP_WORKERS: bad })).toThrow(
        "HTTP_WORKERS: must be a whole number from 0 to 64",
      );
    }
    expect(loadServerConfig({ TOTP_SECRET_ENCRYPTION_KEY: key, HTTP_WORKERS: "3" }).HTTP_WORKERS).toBe(3);
    expect(loadServerConfig({ TOTP_SECRET_ENCRYPTION_KEY: key }).HTTP_WORKERS).toBe(
      Math.max(0, availableParallelism() - 2),
    );
  });

  it("starts its threads with the first ingest connection, which the main thread answers and closes", async () => {
    const t = await TestServer.start({ HTTP_WORKERS: "1" });
    try {
      const pool = t.server.httpWorkers;
      expect((await t.request("/health")).status).toBe(200);
      const f = await field(t);
      expect(pool?.threadIds()).toEqual([]);
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const first = await send(t, agent, "POST", "/api/telemetry", {
        token: f.operador,
        body: payload(f.assetId, Date.now() - 2000),
      });
      expect(first.status).toBe(201);
      expect(first.headers.connection).toBe("close");
      for (let i = 0; i < 1000 && pool?.threadIds().length === 0; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(pool?.threadIds()).toHaveLength(1);
      // The client's next connection goes to the worker, and stays open.
      const next = await send(t, agent, "POST", "/api/telemetry", {
        token: f.operador,
        body: payload(f.assetId, Date.now() - 1000),
      });
      agent.destroy();
      expect(next.status).toBe(201);
      expect(next.headers.connection).toBe("keep-alive");
      expect(await workerRequests(t, "/api/telemetry", 201)).toBe(1);
    } finally {
      await t.stop();
    }
  });

  it("0 serves every request on the main thread", async () => {
    const t = await TestServer.start({ HTTP_WORKERS: "0" });
    try {
      expect(t.server.httpWorkers).toBeUndefined();
      const res: ApiResponse = await t.request("/health");
      expect(res.status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});
