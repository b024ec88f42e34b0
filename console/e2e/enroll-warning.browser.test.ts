import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import { en } from "../src/i18n/en.ts";
import { es } from "../src/i18n/es.ts";
import { agentDistWithWinsw, startAgent } from "./testing/agent-field.ts";
import { axeViolations } from "./testing/axe.ts";
import { BROWSER_TEST_TIMEOUT_MS, eventually, type GuardedPage, guardedPage } from "./testing/browser.ts";
import { signIn, startSite } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

type Code = { id: string; purpose: string; status: string };

/**
 * Issue 28 §4: enrolling another agent replaces the project's agent token and disconnects the
 * running agent. While a real agent is online, the installers section asks before it issues an
 * enrollment code or a Linux install script (which carries one), naming that consequence, in
 * Spanish and English; cancelled, nothing is issued. With no agent online, it asks nothing.
 */
requirePeer("chromium", chromiumMissing).describe("the warning before enrolling over a running agent", () => {
  let t: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  let stopAgent: (() => Promise<void>) | undefined;
  let admin: string;
  let projectId: string;
  let supervisor: Awaited<ReturnType<TestServer["userWithRole"]>>;
  const agentStatus = async () =>
    (await t.request<{ status: string }>(`/api/edge/agents/${projectId}/health`, { token: admin })).body
      .status;
  beforeAll(async () => {
    ({ t, browser, stop } = await startSite());
    admin = (await t.admin()).token;
    projectId = await t.project();
    supervisor = await t.userWithRole("supervisor", [projectId]);
    agentDistWithWinsw(t.config.AGENT_DIST_DIR);
    ({ stop: stopAgent } = await startAgent(t, admin, projectId));
    // Outside a test, so polled by hand: the server has heard the agent's "online".
    for (let tries = 0; (await agentStatus()) !== "online"; tries++) {
      if (tries > 150) throw new Error("the agent did not come online");
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => {
    await stopAgent?.();
    await stop?.();
  });

  const codes = async () =>
    (await t.request<Code[]>(`/api/edge/projects/${projectId}/enrollment-codes`, { token: admin })).body;

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
    await g.page.getByTestId("no-codes").or(g.page.getByTestId("enrollment-codes")).waitFor();
    return g;
  };

  for (const [language, catalog] of [
    ["es", es],
    ["en", en],
  ] as const) {
    it(`${language}: asks before issuing a code or a script while the agent is online; cancelled, nothing is issued`, async () => {
      const before = (await codes()).length;
      const g = await open(language);
      const section = g.page.locator("section[aria-labelledby=config-installers]");
      const warning = section.getByTestId("enroll-warning");
      for (const button of ["issue-code", "linux-script"]) {
        await section.getByTestId(button).click();
        await warning.waitFor();
        const text = (await warning.innerText()).replace(/\s+/g, " ");
        expect(text, button).toContain(catalog["config.enroll.online.title"]);
        expect(text, button).toContain(catalog["config.enroll.online.body"].split("{seen}")[1]?.trim());
        expect(await axeViolations(g.page)).toEqual([]);
        await warning.getByTestId("enroll-warning-cancel").click();
        await warning.waitFor({ state: "detached" });
      }
      expect(await codes()).toHaveLength(before);
      expect(await section.getByTestId("issued-code").count()).toBe(0);

      // Confirmed: the code is issued, and shown once.
      await section.getByTestId("issue-code").click();
      await warning.getByTestId("enroll-warning-confirm").click();
      await eventually(() => section.getByTestId("issued-code").textContent()).toMatch(
        /cen_[A-Za-z0-9_-]{20,}/,
      );
      expect((await codes()).filter((c) => c.purpose === "manual")).toHaveLength(
        (language === "es" ? 0 : 1) + 1,
      );
      expect(g.errors).toEqual([]);
      await g.close();
    });
  }

  it("with no agent online, a code is issued at once", async () => {
    await stopAgent?.();
    stopAgent = undefined;
    await eventually(agentStatus).toBe("offline");
    const g = await open("en");
    const section = g.page.locator("section[aria-labelledby=config-installers]");
    const before = (await codes()).length;
    await section.getByTestId("issue-code").click();
    await eventually(() => section.getByTestId("issued-code").textContent()).toMatch(
      /cen_[A-Za-z0-9_-]{20,}/,
    );
    expect(await section.getByTestId("enroll-warning").count()).toBe(0);
    expect(await codes()).toHaveLength(before + 1);
    await g.close();
  });
});
