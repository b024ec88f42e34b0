import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchChromium } from "../../../scripts/testing/chromium.ts";
import { chromiumMissing } from "../../../scripts/testing/peers.ts";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import { TestServer } from "../../testing/harness.ts";

/**
 * The explorer must render on a site with no Internet: every outside request is aborted and
 * recorded, and the operations must still show.
 */
requirePeer("chromium", chromiumMissing).describe("the API explorer in a real browser, offline", () => {
  let t: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    t = await TestServer.start();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it("renders the operations from /docs with all outside network blocked", async () => {
    const page = await browser.newPage();
    const blocked: string[] = [];
    const local: string[] = [];
    const failed: string[] = [];
    const errors: string[] = [];
    await page.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === "data:" || url.protocol === "blob:") return route.continue();
      if (url.hostname !== "127.0.0.1") {
        blocked.push(url.href);
        return route.abort("internetdisconnected");
      }
      local.push(url.pathname);
      return route.continue();
    });
    page.on("requestfailed", (request) => failed.push(request.url()));
    page.on("pageerror", (err) => errors.push(err.message));
    page.on("console", (msg) => {
      if (msg.type() === "error") errors.push(msg.text());
    });

    const res = await page.goto(`${t.baseUrl}/docs`, { waitUntil: "load" });
    expect(res?.status()).toBe(200);
    // Generous: `npm test` runs every file at once on two cores.
    await page.locator(".opblock").first().waitFor({ state: "visible", timeout: 60_000 });

    const paths = await page.locator(".opblock-summary-path").allInnerTexts();
    const normalised = paths.map((p) => p.replace(/\u200b/g, "").trim());
    expect(normalised).toContain("/api/auth/login");
    expect(normalised).toContain("/health");
    expect(await page.locator(".info .title").textContent()).toContain("Caudal API");

    // Everything came from this server, nothing was even attempted elsewhere, nothing failed.
    expect(blocked).toEqual([]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    expect(local).toEqual(
      expect.arrayContaining([
        "/docs",
        "/docs/assets/swagger-ui-bundle.js",
        "/docs/assets/swagger-ui-standalone-preset.js",
        "/docs/assets/swagger-ui.css",
        "/docs/openapi.yaml",
      ]),
    );
    await page.close();
  }, 90_000);
});
