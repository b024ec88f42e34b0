import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import { BROWSER_TEST_TIMEOUT_MS, type GuardedPage, guardedPage } from "./testing/browser.ts";
import { signIn, startSite } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

/**
 * PUBLIC_URL unset (issue 28 §3): above the installers, the console says which address they will
 * carry, the one the page was opened on, and warns to set PUBLIC_URL; opened as 127.0.0.1 (the
 * test server's address), it also says an agent elsewhere cannot reach that. Both languages.
 */
requirePeer("chromium", chromiumMissing).describe("the installers' server address, in chromium", () => {
  let t: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  let projectId: string;
  let supervisor: Awaited<ReturnType<TestServer["userWithRole"]>>;
  beforeAll(async () => {
    ({ t, browser, stop } = await startSite());
    await t.admin();
    projectId = await t.project();
    supervisor = await t.userWithRole("supervisor", [projectId]);
  });
  afterAll(async () => stop?.());

  const open = async (language: "en" | "es"): Promise<GuardedPage> => {
    const g = await guardedPage(browser, t.baseUrl);
    await g.page.addInitScript((lang) => localStorage.setItem("caudal.language", lang), language);
    const labels =
      language === "en"
        ? { email: "Email", password: "Password", submit: "Sign in" }
        : { email: "Correo electrónico", password: "Contraseña", submit: "Ingresar" };
    await signIn(g.page, t.baseUrl, supervisor, labels);
    await g.page.locator("main h1").first().waitFor();
    await g.page.goto(`${t.baseUrl}/#/configuration?project=${projectId}`);
    return g;
  };

  it("warns that PUBLIC_URL is not set, names the address and says localhost is this machine only", async () => {
    const expected = {
      en: ["PUBLIC_URL is not set", "cannot reach it", "set PUBLIC_URL"],
      es: ["PUBLIC_URL no está configurada", "no puede alcanzarla", "configure PUBLIC_URL"],
    };
    for (const language of ["en", "es"] as const) {
      const g = await open(language);
      const warning = g.page.getByTestId("installer-address");
      await warning.waitFor();
      expect(await warning.getAttribute("data-loopback")).toBe("true");
      const text = (await warning.textContent()) ?? "";
      expect(text).toContain(t.baseUrl);
      for (const part of expected[language]) expect(text, language).toContain(part);
      expect(g.errors).toEqual([]);
      await g.close();
    }
  });
});
