import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import { BROWSER_TEST_TIMEOUT_MS, eventually, explainFailure, guardedPage } from "./testing/browser.ts";
import { consoleField, signIn, startSite, writeValues } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

const HOUR = 3_600_000;

/*
 * A trend opens on a range that shows its data: the last hour when there is less than a day of it
 * (a fresh demo's chart was a sliver at the right edge of 24 h, "Points: 2"), and the range the
 * user picked is kept when they switch asset.
 */
requirePeer("chromium", chromiumMissing).describe("the trend's range, in chromium", () => {
  let t: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  let log: readonly string[];
  let f: Awaited<ReturnType<typeof consoleField>>;
  beforeAll(async () => {
    ({ t, browser, stop, log } = await startSite());
    f = await consoleField(t);
    // The well: two readings a few seconds old, nothing before. The tank: a reading two days ago and one now.
    await writeValues(t, f.admin.token, f.wellId, { pressure: 1000 }, "psi");
    await writeValues(t, f.admin.token, f.wellId, { pressure: 1010 }, "psi");
    const old = await t.request("/api/telemetry/batch", {
      token: f.admin.token,
      body: {
        items: [
          {
            asset_id: f.tankId,
            timestamp: new Date(Date.now() - 48 * HOUR).toISOString(),
            readings: [{ variable: "level", value: 11 }],
          },
        ],
      },
    });
    expect(old.status, old.text).toBe(201);
    await writeValues(t, f.admin.token, f.tankId, { level: 12 }, "ft");
  });
  afterAll(async () => stop?.());

  const pressed = (g: Awaited<ReturnType<typeof guardedPage>>) =>
    g.page.locator(".trend-controls button[aria-pressed=true]").textContent();

  it("opens on the last hour with less than a day of data, on 24 h with more; a picked range stays across assets", async (test) => {
    const g = await guardedPage(browser, t.baseUrl);
    explainFailure(test, g, log);
    await signIn(g.page, t.baseUrl, f.operador);
    await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();

    await g.page.goto(`${t.baseUrl}/#/projects/${f.projectId}/assets/${f.wellId}`);
    const chart = g.page.getByTestId("trend-chart");
    await eventually(() => chart.getAttribute("data-points")).toBe("2");
    expect(await pressed(g)).toBe("1 h");
    expect(await g.page.getByRole("status").filter({ hasText: "Points" }).textContent()).toBe(
      "Points: 2 (raw readings)",
    );

    // The tank has two days of data: 24 h shows its newest reading.
    await g.page.locator(`nav a[href$="/assets/${f.tankId}"]`).click();
    await g.page.waitForURL(`**/assets/${f.tankId}`);
    await eventually(() => pressed(g)).toBe("24 h");

    // Picked on the tank, kept on the well.
    const history = g.page.waitForResponse(
      (r) => r.url().includes("/history") && r.url().includes("interval=1h"),
    );
    await g.page.getByRole("button", { name: "7 d" }).click();
    await history;
    await g.page.locator(`nav a[href$="/assets/${f.wellId}"]`).click();
    await g.page.waitForURL(`**/assets/${f.wellId}`);
    await eventually(() => pressed(g)).toBe("7 d");
    await eventually(() => chart.getAttribute("data-points")).toBe("1");
    expect(g.errors).toEqual([]);
    await g.close();
  });
});
