import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import { BROWSER_TEST_TIMEOUT_MS, eventually, guardedPage } from "./testing/browser.ts";
import { consoleField, signIn, startSite, writeValues } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

/** Words of actions that change configuration (devices, variables, rules, deployments, users). */
const CONFIG_ACTION = /\b(add|create|new|edit|delete|remove|deploy|configure|save)\b/i;

requirePeer("chromium", chromiumMissing).describe("what each role sees in the console, in chromium", () => {
  let t: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  let f: Awaited<ReturnType<typeof consoleField>>;
  beforeAll(async () => {
    ({ t, browser, stop } = await startSite());
    f = await consoleField(t);
    await writeValues(t, f.admin.token, f.wellId, { pressure: 1000 }, "psi");
  });
  afterAll(async () => stop?.());

  const navLinks = async (page: import("playwright-core").Page) =>
    page.getByRole("navigation", { name: "Main" }).getByRole("link").allTextContents();

  it("anh_reader: lands on compliance, sees only its pages, and asks the API nothing of telemetry or alarms", async () => {
    const g = await guardedPage(browser, t.baseUrl);
    await signIn(g.page, t.baseUrl, f.reader);
    await g.page.getByTestId("role").getByText("ANH reader").waitFor();
    await g.page.getByRole("heading", { name: "ANH reports", level: 1 }).waitFor();
    expect(g.page.url()).toBe(`${t.baseUrl}/#/compliance/reports`);
    expect(await navLinks(g.page)).toEqual(["Compliance"]);
    expect(
      await g.page.getByRole("navigation", { name: "Compliance" }).getByRole("link").allTextContents(),
    ).toEqual(["ANH reports", "Operational records"]);
    expect(await g.page.getByTestId("stream-status").count()).toBe(0);
    for (const path of [
      "/overview",
      "/alarms",
      `/projects/${f.projectId}`,
      `/projects/${f.projectId}/assets/${f.wellId}`,
      `/agents?project=${f.projectId}`,
      `/configuration?project=${f.projectId}`,
      "/compliance/audit",
      "/admin/users",
      "/admin/two-factor",
      "/admin/billing",
    ]) {
      await g.page.goto(`${t.baseUrl}/#${path}`);
      await eventually(() => g.page.getByRole("heading", { level: 1 }).textContent(), { message: path }).toBe(
        "Not available",
      );
    }
    await g.page.goto(`${t.baseUrl}/#/compliance/records`);
    await g.page.getByRole("heading", { name: "Operational records", level: 1 }).waitFor();
    await g.page.getByText("No records of this type yet.").waitFor();
    // Reports, records and the project list: nothing else (no telemetry, alarms, assets or users).
    const asked = new Set(g.requests.map((r) => r.url.pathname).filter((p) => p.startsWith("/api/")));
    const allowed = /^\/api\/(auth\/.+|edge\/projects|anh\/reports(\/preview)?|movements)$/;
    expect([...asked].filter((p) => !allowed.test(p))).toEqual([]);
    expect(g.errors).toEqual([]);
    await g.close();
  });

  it("operador: overview and alarms, acknowledges, and has no configuration actions", async () => {
    const g = await guardedPage(browser, t.baseUrl);
    await signIn(g.page, t.baseUrl, f.operador);
    await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    expect(await navLinks(g.page)).toEqual(["Overview", "Alarms", "Agents", "Compliance"]);
    await g.page.goto(`${t.baseUrl}/#/projects/${f.projectId}/assets/${f.wellId}`);
    await g.page.locator('[data-variable="pressure"] .value').getByText("1,000").waitFor();
    const buttons = await g.page.getByRole("button").allTextContents();
    expect(buttons.filter((b) => CONFIG_ACTION.test(b))).toEqual([]);
    expect(buttons).toContain("Export CSV");

    await writeValues(t, f.admin.token, f.wellId, { pressure: 1700 }, "psi");
    await g.page.goto(`${t.baseUrl}/#/alarms?project=${f.projectId}`);
    const row = g.page.getByTestId("active-alarms").locator("tbody tr");
    await row.getByRole("button", { name: /^Acknowledge/ }).waitFor();
    const alarmButtons = await g.page.getByRole("button").allTextContents();
    expect(alarmButtons.filter((b) => CONFIG_ACTION.test(b))).toEqual([]);
    await writeValues(t, f.admin.token, f.wellId, { pressure: 1000 }, "psi");

    // Agents: health, deployments and logs to read, no Deploy, no test-read; no configuration page.
    await g.page.goto(`${t.baseUrl}/#/agents?project=${f.projectId}`);
    await g.page.getByTestId("deployed-version").waitFor();
    await g.page.getByTestId("agent-none").waitFor();
    await g.page.locator("[data-testid=agent-logs], [data-testid=no-logs]").first().waitFor();
    const agentButtons = await g.page.getByRole("button").allTextContents();
    expect(agentButtons.filter((b) => CONFIG_ACTION.test(b))).toEqual([]);
    expect(
      await g.page.locator("[data-testid=deploy], [data-testid=test-read], [data-testid=browse]").count(),
    ).toBe(0);
    expect(await g.page.getByRole("link", { name: "Install one from the configuration page" }).count()).toBe(
      0,
    );
    await g.page.goto(`${t.baseUrl}/#/configuration?project=${f.projectId}`);
    await g.page.getByRole("heading", { name: "Not available", level: 1 }).waitFor();
    // Nothing was changed, and the configuration page asked the API for nothing.
    const asked = g.requests.filter(
      (r) => r.url.pathname.startsWith("/api/") && !r.url.pathname.startsWith("/api/auth/"),
    );
    expect(asked.filter((r) => r.method !== "GET").map((r) => r.url.pathname)).toEqual([]);
    expect(asked.filter((r) => /enrollment-codes|alert-rules/.test(r.url.pathname))).toEqual([]);
    expect(g.errors).toEqual([]);
    await g.close();
  });

  it("a page outside the role, or an unknown address, says so; a project of someone else is not found", async () => {
    const other = await t.project();
    const g = await guardedPage(browser, t.baseUrl);
    await signIn(g.page, t.baseUrl, f.operador);
    await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await g.page.goto(`${t.baseUrl}/#/no-such-page`);
    await g.page.getByRole("heading", { name: "Page not found" }).waitFor();
    await g.page.goto(`${t.baseUrl}/#/projects/${other}`);
    await g.page.getByText("This project does not exist or is not one of yours.").waitFor();
    await g.close();
  });
});
