import { randomUUID } from "node:crypto";
import mqtt from "mqtt";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import { createDevice, createVariable } from "../../server/testing/fixtures/report-fixtures.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import { type Payload, topics } from "../../shared/mqtt/topics.ts";
import { BROWSER_TEST_TIMEOUT_MS, explainFailure, guardedPage } from "./testing/browser.ts";
import { consoleField, signIn, startSite, writeValues } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

type HeartbeatDevice = Payload<"heartbeat">["devices"][number];

/*
 * The Agents page said a device polled every second was "last read 14 s ago": the time came from
 * the agent's heartbeat, sent every 15 s. It shows the newest reading the server holds.
 */
requirePeer("chromium", chromiumMissing).describe("the Agents page's last read, in chromium", () => {
  let t: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  let log: readonly string[];
  let f: Awaited<ReturnType<typeof consoleField>>;
  let device: string;
  beforeAll(async () => {
    ({ t, browser, stop, log } = await startSite());
    f = await consoleField(t);
    device = await createDevice(t, f.wellId);
    await createVariable(t, device, "pressure", 1000, "psi");
  });
  afterAll(async () => stop?.());

  /** As the project's agent (a token issued for it): one heartbeat reporting `device`. */
  async function sendHeartbeat(projectId: string, device: HeartbeatDevice): Promise<void> {
    const issued = await t.request<{ agent_token: string; mqtt_username: string }>(
      `/api/edge/projects/${projectId}/agent-token`,
      { method: "POST", token: f.admin.token },
    );
    expect(issued.status).toBe(201);
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.server.broker.port}`, {
      username: issued.body.mqtt_username,
      password: issued.body.agent_token,
      reconnectPeriod: 0,
    });
    const heartbeat: Payload<"heartbeat"> = {
      agent_id: randomUUID(),
      agent_version: "1.0.0",
      uptime_seconds: 600,
      devices: [device],
      buffer: { batches: 0, points: 0, oldest_ts: null, dropped_batches: 0 },
      config: { version: null, hash: null },
    };
    try {
      await client.publishAsync(topics.heartbeat(projectId), JSON.stringify(heartbeat), { qos: 1 });
    } finally {
      await client.endAsync();
    }
  }

  it("is the newest reading the server holds, not the heartbeat's 14 s old time", async (test) => {
    await sendHeartbeat(f.projectId, {
      device_id: device,
      name: "PLC-1",
      state: "ok",
      last_error: null,
      last_read_at: new Date(Date.now() - 14_000).toISOString(),
    });
    await writeValues(t, f.admin.token, f.wellId, { pressure: 1000 }, "psi");

    const g = await guardedPage(browser, t.baseUrl);
    explainFailure(test, g, log);
    await signIn(g.page, t.baseUrl, f.supervisor);
    await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    const health = g.page.waitForResponse((r) => r.url().endsWith(`/api/edge/agents/${f.projectId}/health`));
    await g.page.goto(`${t.baseUrl}/#/agents?project=${f.projectId}`);
    const answered = (await (await health).json()) as {
      devices: { device_id: string; last_reading_at: string | null }[];
    };
    const cell = g.page.locator(`[data-device="${device}"] [data-testid=last-read]`);
    await cell.waitFor();
    const shown = await cell.textContent();
    const newest = answered.devices.find((d) => d.device_id === device)?.last_reading_at;
    expect(newest).toBeTruthy();
    // A few seconds at most, as the reading written just now: never the heartbeat's 14 s.
    const seconds = Number(/(\d+)\s*sec/.exec(shown ?? "")?.[1] ?? Number.NaN);
    expect(shown).toMatch(/^\d+ sec\. ago$/);
    expect(seconds).toBeLessThan(10);
    expect(g.errors).toEqual([]);
    await g.close();
  });

  it("words the agent's health reasons in Spanish, keeping the driver's own message as sent", async (test) => {
    const projectId = await t.project(f.admin.token);
    await sendHeartbeat(projectId, {
      device_id: randomUUID(),
      name: "PLC-9",
      state: "failing",
      last_error: "connect ECONNREFUSED 10.0.0.9:502",
      last_read_at: null,
    });
    const g = await guardedPage(browser, t.baseUrl, { locale: "es-CO" });
    explainFailure(test, g, log);
    await signIn(g.page, t.baseUrl, f.admin, {
      email: "Correo electrónico",
      password: "Contraseña",
      submit: "Ingresar",
    });
    await g.page.getByRole("heading", { name: "Resumen", level: 1 }).waitFor();
    await g.page.goto(`${t.baseUrl}/#/agents?project=${projectId}`);
    const reasons = g.page.getByTestId("health-reasons");
    await reasons.waitFor();
    expect(await reasons.textContent()).toBe(
      "Dispositivo PLC-9: Con fallas: connect ECONNREFUSED 10.0.0.9:502",
    );
    expect(await reasons.getAttribute("lang")).toBeNull();
    expect(await reasons.locator("[lang=en]").textContent()).toBe("connect ECONNREFUSED 10.0.0.9:502");
    expect(g.errors).toEqual([]);
    await g.close();
  });
});
