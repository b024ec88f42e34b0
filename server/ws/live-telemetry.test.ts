import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlarmEventDto, TelemetryEvent } from "../services/events.ts";
import { TestServer } from "../testing/harness.ts";
import { tableProbe } from "../testing/table-probe.ts";
import { closed, mustOpen, type StreamMessages } from "../testing/ws-test-client.ts";
import { DEFAULT_LIVE_OPTIONS } from "./stream-options.ts";

type Message = Record<string, unknown>;

/** A committed batch of one asset at one instant (one stream message), with that asset and time. */
function telemetry(
  projectId: string,
  value: number,
  readings = 1,
): TelemetryEvent & { assetId: string; timestamp: string } {
  const assetId = randomUUID();
  const ts = Date.now();
  return {
    source: "http",
    series: Array.from({ length: readings }, (_, i) => ({
      projectId,
      assetId,
      variable: `v${i}`,
      unit: "psi",
      points: [[ts, value]],
    })),
    assetId,
    timestamp: new Date(ts).toISOString(),
  };
}

function alarm(projectId: string): AlarmEventDto {
  return {
    id: randomUUID(),
    project_id: projectId,
    asset_id: null,
    variable: "pressure",
    value: 812.5,
    alarm_type: "high",
    message: "pressure above 800 psi",
    acknowledged: false,
    timestamp: new Date().toISOString(),
  };
}

const projectsOf = (messages: StreamMessages) =>
  messages.all
    .filter((m) => m.type === "telemetry" || m.type === "alarm")
    .map((m) => (m.type === "alarm" ? (m.alarm as Message).project_id : m.project_id));

const isMarker = (value: number) => (m: Message) =>
  m.type === "telemetry" && (m.readings as { value: number }[])[0]?.value === value;

describe("live telemetry stream", () => {
  let t: TestServer;
  let a: string;
  let b: string;
  const emit = (event: TelemetryEvent) => t.server.context.events.emit("telemetry", event);

  beforeAll(async () => {
    t = await TestServer.start();
    a = await t.project();
    b = await t.project();
  });
  afterAll(async () => t.stop());

  it("sends telemetry and alarm events in the documented shape", async () => {
    const { token } = await t.admin();
    const { ws, messages } = await mustOpen(t.baseUrl, { token, project_id: a });
    const event = telemetry(a, 42.5, 2);
    emit(event);
    const raised = alarm(a);
    t.server.context.events.emit("alarm", { event: "raised", alarm: raised });
    await messages.waitFor((m) => m.type === "alarm");
    expect(messages.all).toEqual([
      {
        type: "telemetry",
        project_id: a,
        asset_id: event.assetId,
        timestamp: event.timestamp,
        readings: [
          { variable: "v0", value: 42.5, unit: "psi" },
          { variable: "v1", value: 42.5, unit: "psi" },
        ],
      },
      { type: "alarm", event: "raised", alarm: raised },
    ]);
    ws.close();
  });

  it("gives an operador only the events of the projects assigned to them", async () => {
    const operador = await t.userWithRole("operador", [a]);
    const { ws, messages } = await mustOpen(t.baseUrl, { token: operador.token });
    emit(telemetry(b, 1));
    t.server.context.events.emit("alarm", { event: "raised", alarm: alarm(b) });
    t.server.context.events.emit("alarm", { event: "cleared", alarm: alarm(a) });
    emit(telemetry(a, 2));
    // Per-client order is kept: had B's events been sent, they would have arrived first.
    await messages.waitFor(isMarker(2));
    expect(projectsOf(messages)).toEqual([a, a]);
    ws.close();
  });

  it("gives the superadmin every project, and project_id narrows it to one", async () => {
    const { token } = await t.admin();
    const every = await mustOpen(t.baseUrl, { token });
    const onlyA = await mustOpen(t.baseUrl, { token, project_id: a });
    emit(telemetry(b, 1));
    emit(telemetry(a, 2));
    await every.messages.waitFor(isMarker(2));
    await onlyA.messages.waitFor(isMarker(2));
    expect(projectsOf(every.messages)).toEqual([b, a]);
    expect(projectsOf(onlyA.messages)).toEqual([a]);
    every.ws.close();
    onlyA.ws.close();
  });

  it("follows a change of the user's project assignment at the next session check", async () => {
    const admin = await t.admin();
    const operador = await t.userWithRole("operador", [a]);
    const { ws, messages } = await mustOpen(t.baseUrl, { token: operador.token });
    const moved = await t.request(`/api/admin/users/${operador.id}/projects`, {
      method: "PUT",
      token: admin.token,
      body: { project_ids: [b] },
    });
    expect(moved.status).toBe(200);
    await t.server.live.checkSessions();
    emit(telemetry(a, 1));
    emit(telemetry(b, 2));
    await messages.waitFor(isMarker(2));
    expect(projectsOf(messages)).toEqual([b]);
    ws.close();
  });

  it("follows a change of the user's project assignment at once, without waiting for the periodic check", async () => {
    const admin = await t.admin();
    const operador = await t.userWithRole("operador", [a]);
    const { ws, messages } = await mustOpen(t.baseUrl, { token: operador.token });
    const moved = await t.request(`/api/admin/users/${operador.id}/projects`, {
      method: "PUT",
      token: admin.token,
      body: { project_ids: [b] },
    });
    expect(moved.status).toBe(200);
    // The change re-reads the user's scope from the store: a round trip after the response on
    // PostgreSQL (none on SQLite). Well within the periodic check's 10 s, b's events arrive.
    const deadline = Date.now() + 2000;
    for (let marker = 100; ; marker++) {
      emit(telemetry(b, marker));
      const arrived = await messages.waitFor(isMarker(marker), 50).then(
        () => true,
        () => false,
      );
      if (arrived) break;
      expect(Date.now(), "b's events within 2 s of the change").toBeLessThan(deadline);
    }
    expect(DEFAULT_LIVE_OPTIONS.sessionCheckIntervalMs).toBeGreaterThanOrEqual(10_000);
    emit(telemetry(a, 1));
    emit(telemetry(b, 2));
    await messages.waitFor(isMarker(2));
    expect(new Set(projectsOf(messages))).toEqual(new Set([b]));
    ws.close();
  });

  it("closes 4403 when the filtered project is no longer one of the user's", async () => {
    const admin = await t.admin();
    const operador = await t.userWithRole("operador", [a]);
    const { ws } = await mustOpen(t.baseUrl, { token: operador.token, project_id: a });
    const closing = closed(ws);
    await t.request(`/api/admin/users/${operador.id}/projects`, {
      method: "PUT",
      token: admin.token,
      body: { project_ids: [] },
    });
    await t.server.live.checkSessions();
    expect(await closing).toEqual({ code: 4403, reason: "project_id is no longer one of your projects" });
  });

  it("closes 4401 when the user logs out", async () => {
    const user = await t.userWithRole("supervisor");
    const { ws } = await mustOpen(t.baseUrl, { token: user.token });
    const closing = closed(ws);
    const logout = await t.request("/api/auth/logout", { method: "POST", token: user.token });
    expect(logout.status).toBe(200);
    expect(await closing).toEqual({ code: 4401, reason: "session ended" });
  });

  it("closes 4401 on a sessionRevoked event for the user, and leaves other users connected", async () => {
    const user = await t.userWithRole("operador", [a]);
    const other = await t.userWithRole("operador", [a]);
    const mine = await mustOpen(t.baseUrl, { token: user.token });
    const theirs = await mustOpen(t.baseUrl, { token: other.token });
    const closing = closed(mine.ws);
    t.server.context.events.emit("sessionRevoked", { sessionId: null, userId: user.id });
    expect((await closing).code).toBe(4401);
    emit(telemetry(a, 7));
    await theirs.messages.waitFor(isMarker(7));
    theirs.ws.close();
  });

  it("closes 4401 at the periodic check when the session ended without an event", async () => {
    const user = await t.userWithRole("operador", [a]);
    const { ws } = await mustOpen(t.baseUrl, { token: user.token });
    const closing = closed(ws);
    // As an out-of-band revocation would (no sessionRevoked event): only the periodic check sees it.
    await tableProbe(t.server).run(
      "UPDATE sessions SET revoked_at = ?, revoked_reason = 'test' WHERE user_id = ?",
      [Date.now(), user.id],
    );
    await t.server.live.checkSessions();
    expect(await closing).toEqual({ code: 4401, reason: "session ended" });
  });

  it("closes 4403 when the user's role no longer reads telemetry", async () => {
    const user = await t.userWithRole("supervisor");
    const { ws } = await mustOpen(t.baseUrl, { token: user.token });
    const closing = closed(ws);
    await tableProbe(t.server).run("UPDATE users SET role = 'anh_reader' WHERE id = ?", [user.id]);
    await t.server.live.checkSessions();
    expect(await closing).toEqual({ code: 4403, reason: "your role no longer reads telemetry" });
  });

  it("reports its clients and deliveries on /metrics", async () => {
    const { token } = await t.admin();
    const { ws, messages } = await mustOpen(t.baseUrl, { token, project_id: a });
    emit(telemetry(a, 99));
    await messages.waitFor(isMarker(99));
    const metrics = await t.request("/metrics");
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(metrics.text)?.[1]);
    expect(value("caudal_ws_clients")).toBeGreaterThanOrEqual(1);
    expect(value("caudal_ws_messages_sent_total")).toBeGreaterThanOrEqual(1);
    expect(Number.isFinite(value("caudal_ws_events_dropped_total"))).toBe(true);
    ws.close();
  });

  it("pings every client and terminates one that stops answering", async () => {
    expect(DEFAULT_LIVE_OPTIONS.pingIntervalMs).toBe(30_000);
    const { token } = await t.admin();
    const healthy = await mustOpen(t.baseUrl, { token });
    const silent = await mustOpen(t.baseUrl, { token }, { autoPong: false });
    let pings = 0;
    healthy.ws.on("ping", () => pings++);
    const silentPinged = new Promise((resolve) => silent.ws.once("ping", resolve));
    t.server.live.heartbeat();
    await silentPinged;
    await expect.poll(() => pings).toBe(1);
    await sleep(100); // the healthy client's pong reaches the server
    const cut = closed(silent.ws);
    t.server.live.heartbeat();
    // Terminated without a closing handshake: RFC 6455 §7.1.5 abnormal closure.
    expect((await cut).code).toBe(1006);
    await expect.poll(() => pings).toBe(2);
    expect(healthy.ws.readyState).toBe(healthy.ws.OPEN);
    healthy.ws.close();
  });

  it("drops the oldest events for a stalled reader, bounds its queue, then says how many", async () => {
    const { token } = await t.admin();
    const project = await t.project();
    const { ws, socket, messages } = await mustOpen(t.baseUrl, { token, project_id: project });
    socket.pause();
    const limits = DEFAULT_LIVE_OPTIONS;
    let emitted = 0;
    let maxQueued = 0;
    let maxBuffered = 0;
    // ~2 KB per event: enough to fill both kernel socket buffers, then ours.
    while (t.server.live.stats().dropped < 2_000 && emitted < 60_000) {
      for (let i = 0; i < 200; i++) emit(telemetry(project, emitted++, 40));
      await new Promise((resolve) => setImmediate(resolve));
      const stats = t.server.live.stats();
      maxQueued = Math.max(maxQueued, stats.queuedFrames);
      maxBuffered = Math.max(maxBuffered, stats.bufferedBytes);
      expect(stats.queuedBytes).toBeLessThanOrEqual(limits.maxQueuedBytes);
    }
    expect(t.server.live.stats().dropped).toBeGreaterThanOrEqual(2_000);
    expect(maxQueued).toBeLessThanOrEqual(limits.maxQueuedFrames);
    expect(maxBuffered).toBeLessThanOrEqual(limits.highWaterMarkBytes + 64 * 1024);
    const last = emitted - 1;
    socket.resume();
    await messages.waitFor(isMarker(last), 20_000);
    const notices = messages.all.filter((m) => m.type === "dropped");
    expect(notices.length).toBeGreaterThan(0);
    const droppedCount = notices.reduce((n, m) => n + (m.count as number), 0);
    const values = messages.all
      .filter((m) => m.type === "telemetry")
      .map((m) => (m.readings as { value: number }[])[0]?.value ?? -1);
    // Nothing is lost silently, order is kept and the newest event made it.
    expect(values.length + droppedCount).toBe(emitted);
    expect(values).toEqual([...values].sort((x, y) => x - y));
    expect(values.at(-1)).toBe(last);
    ws.close();
  }, 60_000);
});

describe("live telemetry stream: expiry", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  it("closes 4401 once the access token expires", async () => {
    const user = await t.userWithRole("operador");
    const { ws } = await mustOpen(t.baseUrl, { token: user.token });
    const closing = closed(ws);
    await t.server.live.checkSessions();
    t.clock.advance(15 * 60 * 1000 + 1000);
    await t.server.live.checkSessions();
    expect(await closing).toEqual({ code: 4401, reason: "access token expired" });
  });
});

describe("live telemetry stream: shutdown", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  it("closes 1001 when the server stops", async () => {
    const user = await t.userWithRole("supervisor");
    const { ws } = await mustOpen(t.baseUrl, { token: user.token });
    const closing = closed(ws);
    await t.server.stop();
    expect(await closing).toEqual({ code: 1001, reason: "server shutting down" });
  });
});
