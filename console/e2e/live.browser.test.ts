import { readFileSync } from "node:fs";
import type { Browser, Download } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import { BROWSER_TEST_TIMEOUT_MS, eventually, guardedPage } from "./testing/browser.ts";
import { consoleField, signIn, startSite, writeValues } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

async function downloaded(download: Download): Promise<{ name: string; text: string }> {
  const path = await download.path();
  return { name: download.suggestedFilename(), text: readFileSync(path, "utf8") };
}

requirePeer("chromium", chromiumMissing).describe(
  "live values and alarms in the console, in chromium",
  () => {
    let t: TestServer;
    let browser: Browser;
    let stop: () => Promise<void>;
    let f: Awaited<ReturnType<typeof consoleField>>;
    beforeAll(async () => {
      ({ t, browser, stop } = await startSite());
      f = await consoleField(t);
    });
    afterAll(async () => stop?.());

    it("a value written through the API appears on the asset page within 2 s, without a reload; its CSV downloads", async () => {
      await writeValues(t, f.admin.token, f.wellId, { pressure: 1000, temperature: 80.25 }, "psi");
      const g = await guardedPage(browser, t.baseUrl);
      await signIn(g.page, t.baseUrl, f.operador);
      await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
      await g.page.goto(`${t.baseUrl}/#/projects/${f.projectId}/assets/${f.wellId}`);
      const pressure = g.page.locator('[data-variable="pressure"] .value');
      await eventually(() => pressure.textContent()).toBe("1,000");
      await g.page.getByTestId("stream-status").getByText("Live", { exact: true }).waitFor();
      await g.page.evaluate("window.__sameDocument = true");

      const written = Date.now();
      await writeValues(t, f.admin.token, f.wellId, { pressure: 1234.5 }, "psi");
      await pressure.getByText("1,234.5").waitFor({ timeout: 2_000 });
      const shownAfterMs = Date.now() - written;
      expect(shownAfterMs).toBeLessThan(2_000);
      expect(await g.page.evaluate("window.__sameDocument")).toBe(true);
      expect(await g.page.locator('[data-variable="pressure"] .quality').textContent()).toBe("Good");
      expect(await g.page.locator('[data-variable="pressure"] .unit').textContent()).toBe("psi");
      process.stdout.write(`live value shown ${shownAfterMs} ms after the API accepted it\n`);

      // The trend of the first variable is drawn; the 1 h range reads raw readings, and CSV exports them.
      await g.page.getByRole("button", { name: "Show the trend of pressure" }).click();
      await g.page.getByRole("button", { name: "1 h" }).click();
      await eventually(() => g.page.getByTestId("trend-chart").getAttribute("data-points")).toBe("2");
      const [download] = await Promise.all([
        g.page.waitForEvent("download"),
        g.page.getByTestId("export-csv").click(),
      ]);
      const csv = await downloaded(download);
      expect(csv.name).toBe(`telemetry-${f.wellId}.csv`);
      expect(
        csv.text
          .split("\r\n")
          .filter(Boolean)
          .map((l) => l.split(",").slice(1).join(",")),
      ).toEqual(["variable,value,unit", "pressure,1000,psi", "pressure,1234.5,psi"]);
      expect(g.errors).toEqual([]);
      expect(g.blocked).toEqual([]);
      await g.close();
    });

    it("a raised alarm shows as a banner and on the alarms page; acknowledging it there is what the API says", async () => {
      const g = await guardedPage(browser, t.baseUrl);
      await signIn(g.page, t.baseUrl, f.operador);
      await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
      await g.page.goto(`${t.baseUrl}/#/alarms?project=${f.projectId}`);
      await g.page.getByTestId("no-active-alarms").waitFor();
      await g.page.getByTestId("stream-status").getByText("Live", { exact: true }).waitFor();

      await writeValues(t, f.admin.token, f.wellId, { pressure: 1600 }, "psi");
      const banner = g.page.getByTestId("alarm-banner");
      await banner.waitFor({ timeout: 15_000 });
      expect(await banner.getAttribute("role")).toBe("alert");
      expect(await banner.textContent()).toContain("New alarm");
      expect(await banner.textContent()).toContain("Critical");
      const row = g.page.getByTestId("active-alarms").locator("tbody tr");
      await eventually(() => row.count()).toBe(1);
      const alarmId = (await row.getAttribute("data-alarm")) ?? "";
      expect(await row.textContent()).toContain("High pressure");

      await row.getByRole("button", { name: /^Acknowledge/ }).click();
      await eventually(() => row.textContent()).toContain("acknowledged");
      expect(await row.getByRole("button").count()).toBe(0);
      const api = await t.request<{ id: string; acknowledged: boolean; acknowledged_by: string }[]>(
        `/api/alarms?project_id=${f.projectId}`,
        { token: f.admin.token },
      );
      expect(api.body).toEqual([
        expect.objectContaining({ id: alarmId, acknowledged: true, acknowledged_by: f.operador.id }),
      ]);

      // History: the raise and the acknowledgement, filtered by severity, and as CSV.
      const history = g.page.getByTestId("alarm-history").locator("tbody tr");
      await eventually(() => history.allTextContents()).toEqual([
        expect.stringContaining("Acknowledged"),
        expect.stringContaining("Raised"),
      ]);
      await g.page.getByLabel("Severity").selectOption("warning");
      await g.page.getByRole("button", { name: "Filter" }).click();
      await g.page.getByText("No alarm events match.").waitFor();
      await g.page.getByLabel("Severity").selectOption("critical");
      await g.page.getByRole("button", { name: "Filter" }).click();
      await eventually(() => history.count()).toBe(2);
      const [download] = await Promise.all([
        g.page.waitForEvent("download"),
        g.page.getByTestId("history-csv").click(),
      ]);
      const csv = await downloaded(download);
      expect(csv.name).toBe(`alarm-history-${f.projectId}.csv`);
      expect(
        csv.text
          .split("\r\n")
          .filter(Boolean)
          .map((l) => l.split(",")[1]),
      ).toEqual(["event", "acknowledged", "raised"]);

      // The alarm returns to normal: it leaves the active list (acknowledged and returned).
      await writeValues(t, f.admin.token, f.wellId, { pressure: 900 }, "psi");
      await g.page.getByTestId("no-active-alarms").waitFor({ timeout: 15_000 });
      expect(g.errors).toEqual([]);
      await g.close();
    });

    it("the banner shows on any page while the console is open", async () => {
      const g = await guardedPage(browser, t.baseUrl);
      await signIn(g.page, t.baseUrl, f.supervisor);
      await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
      await g.page.getByTestId("stream-status").getByText("Live", { exact: true }).waitFor();
      await writeValues(t, f.admin.token, f.tankId, { pressure: 2000 });
      await g.page.getByTestId("alarm-banner").waitFor({ timeout: 15_000 });
      await g.page.getByTestId("alarm-banner").getByRole("link", { name: "See alarms" }).click();
      await g.page.getByRole("heading", { name: "Alarms", level: 1 }).waitFor();
      expect(await g.page.getByTestId("alarm-banner").count()).toBe(0);
      await eventually(() => g.page.getByTestId("active-alarms").locator("tbody tr").count()).toBe(1);
      await writeValues(t, f.admin.token, f.tankId, { pressure: 100 });
      await g.close();
    });
  },
);
