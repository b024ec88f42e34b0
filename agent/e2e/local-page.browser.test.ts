import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { en } from "../../console/agent-page/en.ts";
import { es } from "../../console/agent-page/es.ts";
import { axeViolations } from "../../console/e2e/testing/axe.ts";
import {
  BROWSER_TEST_TIMEOUT_MS,
  eventually,
  guardedPage,
  VIEWPORTS,
  type ViewportName,
} from "../../console/e2e/testing/browser.ts";
import { PymodbusPeer, pymodbusSkipReason } from "../../scripts/sim/pymodbus-peer.ts";
import { launchChromium } from "../../scripts/testing/chromium.ts";
import { freePort } from "../../scripts/testing/free-port.ts";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import { seedAppliedConfig } from "../../scripts/testing/seed-agent-store.ts";
import type { AgentRuntimeConfig, AgentVariable } from "../../shared/mqtt/agent-config.ts";
import { agentFileConfigSchema } from "../../shared/mqtt/agent-file-config.ts";
import { ChildAgent } from "../testing/child-agent.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

const ARTIFACTS = join(import.meta.dirname, "..", "..", "test-artifacts", "agent-page");

/**
 * Text of the other language left in the page (a line that is one of its messages), and any
 * catalog key shown as such: what a missing translation looks like.
 */
function untranslated(text: string, language: "en" | "es"): string[] {
  const [own, other] = language === "es" ? [es, en] : [en, es];
  const lines = text.split("\n").map((l) => l.trim());
  const foreign = Object.entries(other)
    .filter(([key, value]) => value !== own[key as keyof typeof en] && !value.includes("{"))
    .map(([, value]) => value)
    .filter((value) => lines.includes(value));
  const keys = Object.keys(en).filter((key) => text.includes(key));
  return [...foreign, ...keys];
}

/** Writes one holding register as a second Modbus master would (an HMI setting a value): FC 6. */
function writeRegister(port: number, address: number, value: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // MBAP header (transaction 1, protocol 0, 6 bytes follow, unit 1), then FC 6, address, value.
    const request = Buffer.from([0, 1, 0, 0, 0, 6, 1, 6, 0, 0, 0, 0]);
    request.writeUInt16BE(address, 8);
    request.writeUInt16BE(value, 10);
    const socket = connect({ host: "127.0.0.1", port }, () => socket.write(request));
    socket.once("data", (reply: Buffer) => {
      socket.destroy();
      // A write single register reply echoes the request (Modbus Application Protocol §6.6).
      if (reply.equals(request)) resolve();
      else reject(new Error(`unexpected reply ${reply.toString("hex")}`));
    });
    socket.once("error", reject);
  });
}

const variable = (alias: string, register: number, unit: string, scale: number | null): AgentVariable => ({
  id: randomUUID(),
  alias,
  data_type: "uint16",
  register_address: register,
  register_kind: "holding",
  word_order: "ABCD",
  scale_factor: scale,
  unit,
  address: null,
  poll_interval_ms: 200,
  deadband: 0,
});

const LANGUAGES = [
  { locale: "es-CO", language: "es", heading: "Agente Caudal" },
  { locale: "en-US", language: "en", heading: "Caudal agent" },
] as const;

requirePeer("chromium and python3-pymodbus", () => chromiumMissing() ?? pymodbusSkipReason()).describe(
  "the agent's local page, with the server out of reach, in chromium",
  () => {
    let plc: PymodbusPeer;
    let agent: ChildAgent;
    let browser: Browser;
    let base: string;
    let dataDir: string;

    beforeAll(async () => {
      // The wellhead PLC is Debian's pymodbus; the tank's PLC is a port where nothing listens.
      plc = await PymodbusPeer.start({ mode: "tcp", where: 0, registers: { holding: { 0: 1200, 1: 815 } } });
      const projectId = randomUUID();
      const config: AgentRuntimeConfig = {
        project_id: projectId,
        devices: [
          {
            id: randomUUID(),
            asset_id: randomUUID(),
            name: "Wellhead PLC",
            protocol: "modbus_tcp",
            host: "127.0.0.1",
            port: plc.port,
            slave_id: 1,
            variables: [variable("pressure", 0, "psi", null), variable("temperature", 1, "degF", 0.1)],
          },
          {
            id: randomUUID(),
            asset_id: randomUUID(),
            name: "Tank PLC",
            protocol: "modbus_tcp",
            host: "127.0.0.1",
            port: await freePort(),
            slave_id: 1,
            variables: [variable("tank_level", 0, "ft", null)],
          },
        ],
        alert_rules: [
          {
            id: randomUUID(),
            name: "High pressure",
            variable_alias: "pressure",
            condition: "gt",
            threshold: 1000,
            severity: "critical",
            deadband: 0,
            delay_seconds: 0,
          },
        ],
      };
      dataDir = mkdtempSync(join(tmpdir(), "caudal-local-page-"));
      // As after a reboot with the WAN down: the configuration is in the store, the broker is not there.
      seedAppliedConfig(dataDir, config);
      agent = new ChildAgent(
        agentFileConfigSchema.parse({
          version: 1,
          mqtt_url: `mqtt://127.0.0.1:${await freePort()}`,
          project_id: projectId,
          agent_token: "cat_local-page-test-token",
          data_dir: dataDir,
          local_api_port: await freePort(),
        }),
      );
      await agent.start();
      base = `http://127.0.0.1:${agent.config.local_api_port}`;
      browser = await launchChromium();
      mkdirSync(ARTIFACTS, { recursive: true });
    });
    afterAll(async () => {
      await browser?.close();
      if (agent?.running) await agent.kill("SIGTERM");
      await plc?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    for (const lang of LANGUAGES) {
      for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
        const { width, height } = VIEWPORTS[viewport];
        it(`${lang.language} at ${width}×${height}: translated, accessible, fits the screen`, async () => {
          const g = await guardedPage(browser, base, { viewport, locale: lang.locale });
          await g.page.goto(`${base}/`);
          await g.page.getByRole("heading", { name: lang.heading, level: 1 }).waitFor();
          // As the first test finds them: a value, the failing tank PLC, the pressure alarm.
          await g.page.locator('[data-variable="pressure"]').waitFor();
          await g.page.getByTestId("devices").locator(".state-bad").waitFor();
          await g.page.getByTestId("alarms").getByRole("table").waitFor();
          expect(await g.page.evaluate("document.documentElement.lang")).toBe(lang.language);
          expect(untranslated(await g.page.innerText("body"), lang.language)).toEqual([]);
          expect(await axeViolations(g.page)).toEqual([]);
          // Nothing wider than the screen but the tables' own scrolling boxes.
          expect(await g.page.evaluate("document.documentElement.scrollWidth - window.innerWidth")).toBe(0);
          await g.page.screenshot({
            path: join(ARTIFACTS, `local-page-${lang.language}-${viewport}.png`),
            fullPage: true,
          });
          expect(g.errors).toEqual([]);
          expect(g.blocked).toEqual([]);
          await g.close();
        });
      }
    }

    it("the language switch overrides the browser's and is remembered", async () => {
      const g = await guardedPage(browser, base, { locale: "en-US" });
      await g.page.goto(`${base}/`);
      await g.page.getByRole("heading", { name: "Caudal agent", level: 1 }).waitFor();
      await g.page.getByTestId("language").selectOption("es");
      await g.page.getByRole("heading", { name: "Agente Caudal", level: 1 }).waitFor();
      expect(await g.page.title()).toBe("Agente Caudal");
      await g.page.reload();
      await g.page.getByRole("heading", { name: "Valores en vivo", level: 2 }).waitFor();
      expect(await g.page.evaluate("document.documentElement.lang")).toBe("es");
      await g.close();
    });

    it("shows devices, live values, alarms, backlog and configuration, and follows a new reading without a reload", async (ctx) => {
      ctx.onTestFailed(() => console.log(agent.lines.slice(-20).join("\n")));
      const g = await guardedPage(browser, base, { locale: "en-US" });
      const { page } = g;
      let navigations = 0;
      page.on("framenavigated", (frame) => {
        if (frame === page.mainFrame()) navigations += 1;
      });
      await page.goto(`${base}/`);
      const row = (alias: string) => page.locator(`[data-variable="${alias}"]`);
      await eventually(() => row("pressure").getByTestId("value").textContent()).toBe("1,200");
      await eventually(() => row("temperature").innerText()).toMatch(/temperature\s+81\.5\s+degF\s+Good/);
      const device = (name: string) =>
        page.getByTestId("devices").getByRole("row").filter({ hasText: name }).getByTestId("device-state");
      await eventually(() => device("Wellhead PLC").textContent()).toBe("Reading");
      await eventually(() => device("Tank PLC").textContent()).toBe("Failing");
      const alarms = page.getByTestId("alarms");
      await eventually(() => alarms.getByRole("row").filter({ hasText: "pressure" }).innerText()).toMatch(
        /^Critical\s+Critical high\s+pressure\s+1,200\s/,
      );
      expect(await page.getByTestId("config-version").textContent()).toBe("Version 1");
      expect(await page.getByTestId("link-state").textContent()).toBe("Not connected");
      await eventually(async () =>
        Number((await page.getByTestId("buffer-points").textContent())?.replace(/,/g, "")),
      ).toBeGreaterThan(0);

      // A new reading at the PLC: the value moves and the alarm returns to normal, on the same page.
      await writeRegister(plc.port, 0, 900);
      await eventually(() => row("pressure").getByTestId("value").textContent()).toBe("900");
      await eventually(() => alarms.innerText()).toContain("No active alarms.");
      expect(navigations).toBe(1);

      // Only the agent was asked, and only for the page and the local API's read-only endpoints.
      const asked = new Set(g.requests.map((r) => `${r.method} ${r.url.pathname}`));
      const allowed = new Set([
        "GET /",
        "GET /assets/main.js",
        "GET /assets/page.css",
        "GET /assets/icon.svg",
        "GET /status",
        "GET /alarms",
      ]);
      expect([...asked].filter((r) => !allowed.has(r))).toEqual([]);
      expect([...asked]).toEqual(expect.arrayContaining(["GET /status", "GET /alarms"]));
      expect(g.blocked).toEqual([]);
      expect(g.errors).toEqual([]);
      await g.close();
    });

    it("keeps the last values, marked, while the agent does not answer, and resumes when it is back", async () => {
      const g = await guardedPage(browser, base, { locale: "en-US" });
      await g.page.goto(`${base}/`);
      const value = g.page.locator('[data-variable="pressure"]').getByTestId("value");
      await eventually(() => value.textContent()).toBe("900");
      await agent.kill("SIGTERM");
      await eventually(() => g.page.getByTestId("unreachable").textContent()).toMatch(
        /The agent does not answer\. What is shown is from /,
      );
      expect(await value.textContent()).toBe("900");
      await agent.start();
      await writeRegister(plc.port, 0, 1100);
      await eventually(() => value.textContent()).toBe("1,100");
      expect(await g.page.getByTestId("unreachable").count()).toBe(0);
      expect(g.blocked).toEqual([]);
      await g.close();
    });
  },
);
