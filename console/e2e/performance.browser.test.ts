import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import { BROWSER_TEST_TIMEOUT_MS, eventually, guardedPage } from "./testing/browser.ts";
import { signIn, startSite, writeValues } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

const VARIABLES = 1000;
const UPDATES_PER_SECOND = 1000;
const PAYLOADS_PER_SECOND = 20;
const SECONDS = 10;

const report = (line: string) => process.stdout.write(`${line}\n`);

requirePeer("chromium", chromiumMissing).describe("console performance, in chromium", () => {
  let t: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  let token: string;
  let projectId: string;
  beforeAll(async () => {
    ({ t, browser, stop } = await startSite());
    token = (await t.admin()).token;
    projectId = await t.project();
  });
  afterAll(async () => stop?.());

  it("the first load of the overview, sign-in included, transfers at most 300 KB", async () => {
    const assetId = await t.asset(projectId);
    await writeValues(t, token, assetId, { pressure: 1000 });
    const g = await guardedPage(browser, t.baseUrl);
    const cdp = await g.context.newCDPSession(g.page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    let bytes = 0;
    const byUrl = new Map<string, string>();
    cdp.on("Network.requestWillBeSent", (e) => byUrl.set(e.requestId, new URL(e.request.url).pathname));
    const perFile: Record<string, number> = {};
    cdp.on("Network.loadingFinished", (e) => {
      bytes += e.encodedDataLength;
      const path = byUrl.get(e.requestId) ?? "?";
      perFile[path] = (perFile[path] ?? 0) + e.encodedDataLength;
    });
    await g.page.goto(`${t.baseUrl}/`);
    await signIn(g.page, t.baseUrl, await t.admin());
    await g.page.locator("[data-project] [data-testid=completeness]").first().waitFor();
    await eventually(() => g.page.locator("[data-testid=completeness]").first().textContent()).not.toBe("…");
    report(
      `first overview load: ${(bytes / 1024).toFixed(1)} KiB transferred in ${Object.keys(perFile).length} responses`,
    );
    report(
      `  largest: ${Object.entries(perFile)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([p, b]) => `${p} ${(b / 1024).toFixed(1)} KiB`)
        .join(", ")}`,
    );
    expect(bytes).toBeGreaterThan(10_000);
    expect(bytes).toBeLessThanOrEqual(300 * 1024);
    expect(g.blocked).toEqual([]);
    await g.close();
  });

  // Once more on failure: a long task is wall-clock time, and `npm test` runs another file beside
  // this one on two cores; alone it measures 0 long tasks (README, The operator console).
  it(`an asset with ${VARIABLES} live variables keeps up with ${UPDATES_PER_SECOND} updates/s, no long task over 100 ms`, {
    retry: 1,
  }, async () => {
    const assetId = await t.asset(projectId);
    const names = Array.from({ length: VARIABLES }, (_, i) => `tag_${String(i).padStart(4, "0")}`);
    await writeValues(t, token, assetId, Object.fromEntries(names.map((n) => [n, 0])));
    const g = await guardedPage(browser, t.baseUrl);
    await signIn(g.page, t.baseUrl, await t.admin());
    await g.page.locator("[data-project]").first().waitFor();
    await g.page.goto(`${t.baseUrl}/#/projects/${projectId}/assets/${assetId}`);
    await eventually(() => g.page.locator("[data-variable]").count(), { timeout: 30_000 }).toBe(VARIABLES);
    await g.page.getByTestId("stream-status").getByText("Live", { exact: true }).waitFor();
    await g.page.evaluate(`window.__longTasks = [];
      new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); })
        .observe({ type: "longtask" });`);

    const perPayload = UPDATES_PER_SECOND / PAYLOADS_PER_SECOND;
    const started = Date.now();
    let sent = 0;
    for (let i = 0; i < SECONDS * PAYLOADS_PER_SECOND; i++) {
      const readings = Array.from({ length: perPayload }, (_, k) => {
        const name = names[(i * perPayload + k) % VARIABLES] ?? "";
        return { variable: name, value: i + 1 };
      });
      const res = await t.request("/api/telemetry", { token, body: { asset_id: assetId, readings } });
      expect(res.status).toBe(201);
      sent += readings.length;
      const due = started + ((i + 1) * 1000) / PAYLOADS_PER_SECOND;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    }
    const elapsed = (Date.now() - started) / 1000;
    // The rows on screen show the last value written to each, within 2 s of the last write.
    const last = SECONDS * PAYLOADS_PER_SECOND;
    // The value each variable got last: payload i wrote i + 1 to variables i*perPayload … i*perPayload+perPayload-1.
    const lastValue = (v: number) => {
      for (let i = last - 1; i >= 0; i--)
        if ((((v - i * perPayload) % VARIABLES) + VARIABLES) % VARIABLES < perPayload) return String(i + 1);
      return "0";
    };
    const shownInView = () =>
      g.page.evaluate(`[...document.querySelectorAll("[data-variable]")]
        .filter((tr) => { const r = tr.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; })
        .map((tr) => [Number(tr.dataset.variable.slice(4)), tr.querySelector(".value").textContent])`) as Promise<
        [number, string][]
      >;
    const upToDate = async () => {
      const rows = await shownInView();
      return rows.length > 5 && rows.every(([v, text]) => text === lastValue(v));
    };
    await eventually(upToDate, { timeout: 2_000 }).toBe(true);
    // Rows off screen are brought up to date as they scroll in.
    await g.page.locator(`[data-variable="${names[VARIABLES - 1]}"]`).scrollIntoViewIfNeeded();
    await eventually(upToDate, { timeout: 2_000 }).toBe(true);
    const longTasks = (await g.page.evaluate("window.__longTasks")) as number[];
    report(
      `live table: ${sent} updates of ${VARIABLES} variables in ${elapsed.toFixed(1)} s (${(sent / elapsed).toFixed(0)}/s); ` +
        `long tasks: ${longTasks.length} (longest ${Math.max(0, ...longTasks).toFixed(0)} ms)`,
    );
    expect(sent / elapsed).toBeGreaterThan(UPDATES_PER_SECOND * 0.9);
    expect(longTasks.filter((d) => d > 100)).toEqual([]);
    expect(g.errors).toEqual([]);
    await g.close();
  });

  it("a 30-day trend of one variable renders in under 500 ms after the response arrives", async () => {
    const assetId = await t.asset(projectId);
    const now = Math.floor(Date.now() / 60_000) * 60_000;
    const minutes = 30 * 24 * 60;
    for (let from = 0; from < minutes; from += 10_000) {
      const items = Array.from({ length: Math.min(10_000, minutes - from) }, (_, k) => {
        const m = from + k;
        return {
          asset_id: assetId,
          timestamp: new Date(now - (minutes - m) * 60_000).toISOString(),
          readings: [{ variable: "flow", value: 500 + 100 * Math.sin(m / 720) }],
        };
      });
      const res = await t.request("/api/telemetry/batch", { token, body: { items } });
      expect(res.status, res.text).toBe(201);
    }
    const g = await guardedPage(browser, t.baseUrl);
    await signIn(g.page, t.baseUrl, await t.admin());
    await g.page.locator("[data-project]").first().waitFor();
    await g.page.goto(`${t.baseUrl}/#/projects/${projectId}/assets/${assetId}`);
    const chart = g.page.getByTestId("trend-chart");
    await chart.and(g.page.locator("[data-points]")).waitFor();
    const [history] = await Promise.all([
      g.page.waitForResponse((r) => r.url().includes("/history") && r.url().includes("interval=1h")),
      g.page.getByRole("button", { name: "30 d" }).click(),
    ]);
    expect(history.status()).toBe(200);
    // 720 or 721 hourly windows, as the page's "now" falls against the hour and the last minute written.
    const windows = ((await history.json()) as unknown[]).length;
    expect(windows).toBeGreaterThanOrEqual(30 * 24);
    await eventually(() => chart.getAttribute("data-points")).toBe(String(windows));
    const renderMs = Number(await chart.getAttribute("data-render-ms"));
    report(
      `30-day trend: ${windows} hourly windows of ${minutes} readings drawn ${renderMs.toFixed(1)} ms after the response`,
    );
    expect(renderMs).toBeGreaterThan(0);
    expect(renderMs).toBeLessThan(500);
    await g.close();
  });
});
