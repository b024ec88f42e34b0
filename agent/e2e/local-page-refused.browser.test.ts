import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { en } from "../../console/agent-page/en.ts";
import { es } from "../../console/agent-page/es.ts";
import { axeViolations } from "../../console/e2e/testing/axe.ts";
import { BROWSER_TEST_TIMEOUT_MS, guardedPage } from "../../console/e2e/testing/browser.ts";
import { launchChromium } from "../../scripts/testing/chromium.ts";
import { freePort } from "../../scripts/testing/free-port.ts";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import { TestServer } from "../../server/testing/harness.ts";
import type { LocalStatus } from "../../shared/agent-local-api.ts";
import { agentFileConfigSchema } from "../../shared/mqtt/agent-file-config.ts";
import { ChildAgent } from "../testing/child-agent.ts";
import { waitFor } from "../testing/pipeline.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

const ARTIFACTS = join(import.meta.dirname, "..", "..", "test-artifacts", "agent-page");

/**
 * Issue 28 §4: the running agent (a real process) loses its token to a new one issued for the
 * project. Its local page says so in the reader's language, with what to do, instead of "Not
 * connected"; its log says it once.
 */
requirePeer("chromium", () => chromiumMissing()).describe(
  "the local page of an agent whose token was replaced",
  () => {
    let t: TestServer;
    let agent: ChildAgent;
    let browser: Browser;
    let base: string;
    let dataDir: string;

    beforeAll(async () => {
      t = await TestServer.start();
      const { token } = await t.admin();
      const projectId = await t.project();
      const issue = () =>
        t.request<{ agent_token: string }>(`/api/edge/projects/${projectId}/agent-token`, {
          method: "POST",
          token,
        });
      const issued = await issue();
      expect(issued.status).toBe(201);
      dataDir = mkdtempSync(join(tmpdir(), "caudal-local-page-refused-"));
      agent = new ChildAgent(
        agentFileConfigSchema.parse({
          version: 1,
          mqtt_url: `mqtt://127.0.0.1:${t.server.broker.port}`,
          project_id: projectId,
          agent_token: issued.body.agent_token,
          data_dir: dataDir,
          local_api_port: await freePort(),
        }),
      );
      await agent.start();
      await waitFor("the agent to connect", async () => (await agent.status()).connected);
      // A new token for the project, as the API issues it: the running agent's is void at once.
      expect((await issue()).status).toBe(201);
      await waitFor("the agent to be refused", async () => {
        const s = (await agent.status()) as unknown as LocalStatus;
        return s.link?.state === "refused";
      });
      base = `http://127.0.0.1:${agent.config.local_api_port}`;
      browser = await launchChromium();
      mkdirSync(ARTIFACTS, { recursive: true });
    });
    afterAll(async () => {
      await browser?.close();
      if (agent?.running) await agent.kill("SIGTERM");
      await t?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    for (const { locale, language, catalog } of [
      { locale: "es-CO", language: "es", catalog: es },
      { locale: "en-US", language: "en", catalog: en },
    ] as const) {
      it(`${language}: says the credentials are refused, since when, and to re-enroll`, async () => {
        const g = await guardedPage(browser, base, { locale });
        await g.page.goto(`${base}/`);
        const state = g.page.getByTestId("link-state");
        await state.waitFor();
        expect(await state.innerText()).toBe(catalog["link.refused"]);
        const help = g.page.getByTestId("link-refused");
        const text = await help.innerText();
        expect(text).toContain(catalog["link.refusedAction"]);
        expect(text).toContain(catalog["link.refusedSince"].split("{time}")[1]?.trim());
        expect(text).toContain(catalog["link.refusedClosed"].split("{time}")[0]?.trim());
        expect(text).not.toContain(catalog["link.disconnectedHelp"]);
        expect(await axeViolations(g.page)).toEqual([]);
        await g.page.screenshot({
          path: join(ARTIFACTS, `local-page-refused-${language}.png`),
          fullPage: true,
        });
        expect(g.errors).toEqual([]);
        await g.close();
      });
    }

    it("logs the refusal once, in plain words", () => {
      const said = agent.entries().filter((e) => e.message.includes("refused this agent's credentials"));
      expect(said).toHaveLength(1);
      expect(said[0]?.message).toMatch(/re-enroll this agent/);
    });
  },
);
