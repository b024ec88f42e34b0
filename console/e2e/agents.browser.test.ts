import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { OpcUaSeparator } from "../../scripts/sim/opcua-separator.ts";
import { PymodbusPeer, pymodbusSkipReason } from "../../scripts/sim/pymodbus-peer.ts";
import { freePort } from "../../scripts/testing/free-port.ts";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import { created, manualProject, modbusDevice, startAgent } from "./testing/agent-field.ts";
import { BROWSER_TEST_TIMEOUT_MS, eventually, guardedPage } from "./testing/browser.ts";
import { signIn, startSite } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

type Deployment = { id: string; version: number; status: string; created_by: string | null };

/**
 * The agents page against a real server, a real agent (in this process, as the agent's own
 * end-to-end tests run it) and a real Modbus device (Debian's pymodbus), in chromium.
 */
requirePeer("chromium and python3-pymodbus", () => chromiumMissing() ?? pymodbusSkipReason()).describe(
  "the agents page, with a running agent and a Modbus device, in chromium",
  () => {
    let t: TestServer;
    let browser: Browser;
    let stop: () => Promise<void>;
    let plc: PymodbusPeer;
    let stopAgent: () => Promise<void>;
    let admin: string;
    let projectId: string;
    let supervisor: Awaited<ReturnType<TestServer["userWithRole"]>>;
    beforeAll(async () => {
      [{ t, browser, stop }, plc] = await Promise.all([
        startSite(),
        PymodbusPeer.start({ mode: "tcp", where: 0, registers: { holding: { 0: 1234, 1: 87 } } }),
      ]);
      admin = (await t.admin()).token;
      const field = await manualProject(t, admin, "Campo Norte");
      projectId = field.projectId;
      await modbusDevice(
        t,
        admin,
        field.wellId,
        { name: "RTU cabeza", port: plc.port },
        {
          casing_pressure: 0,
          tubing_pressure: 1,
        },
      );
      supervisor = await t.userWithRole("supervisor", [projectId]);
      ({ stop: stopAgent } = await startAgent(t, admin, projectId));
    });
    afterAll(async () => {
      await stopAgent?.();
      await plc?.stop();
      await stop?.();
    });

    const deployments = async () =>
      (await t.request<Deployment[]>(`/api/edge/projects/${projectId}/deployments`, { token: admin })).body;

    it("shows the agent's health; Deploy is what the API records, and the agent's applied version follows", async () => {
      const g = await guardedPage(browser, t.baseUrl);
      await signIn(g.page, t.baseUrl, supervisor);
      await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
      await g.page.goto(`${t.baseUrl}/#/agents?project=${projectId}`);
      await g.page.getByTestId("agent-status").getByText("Online").waitFor();
      expect(await g.page.getByTestId("agent-version").textContent()).not.toBe("—");
      await eventually(() => g.page.getByTestId("buffer").textContent()).toMatch(/points in \d+ batches/);
      expect(await g.page.getByTestId("running-version").textContent()).toBe("None deployed yet");
      expect(await g.page.getByTestId("deployed-version").textContent()).toBe("Never deployed");
      expect(await g.page.getByTestId("pending-changes").getAttribute("data-pending")).toBe("true");
      expect(await deployments()).toEqual([]);

      await g.page.getByTestId("deploy").click();
      const history = g.page.getByTestId("deployments").locator("tbody tr");
      await eventually(() => history.count()).toBe(1);
      const recorded = await deployments();
      expect(recorded).toEqual([expect.objectContaining({ version: 1, created_by: supervisor.id })]);
      // The agent applies it; the page follows without a reload.
      await eventually(() => history.getAttribute("data-status")).toBe("applied");
      expect(await history.textContent()).toContain("1 devices, 2 variables, 0 rules");
      await eventually(() => g.page.getByTestId("running-version").textContent()).toBe("version 1");
      expect(await g.page.getByTestId("pending-changes").getAttribute("data-pending")).toBe("false");
      expect((await deployments())[0]?.status).toBe("applied");

      // Every state-changing request the page made carried the bearer token.
      const changes = g.requests.filter(
        (r) => r.method !== "GET" && !r.url.pathname.startsWith("/api/auth/"),
      );
      expect(changes.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
        `POST /api/edge/projects/${projectId}/deploy`,
      ]);
      expect(changes.every((r) => r.headers.authorization?.startsWith("Bearer "))).toBe(true);
      expect(g.errors).toEqual([]);
      expect(g.blocked).toEqual([]);
      await g.close();
    });

    it("lists the agent's logs, filtered by level", async () => {
      for (const [level, message] of [
        ["info", "console check: an ordinary line"],
        ["error", "console check: the flow computer stopped answering"],
      ] as const) {
        const res = await t.request("/api/edge/agents/logs", {
          token: admin,
          body: { project_id: projectId, level, message, category: "console" },
        });
        expect(res.status, res.text).toBe(201);
      }
      const g = await guardedPage(browser, t.baseUrl);
      await signIn(g.page, t.baseUrl, supervisor);
      await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
      await g.page.goto(`${t.baseUrl}/#/agents?project=${projectId}`);
      const rows = g.page.getByTestId("agent-logs").locator("tbody tr");
      await rows.filter({ hasText: "an ordinary line" }).waitFor();
      await g.page.getByTestId("log-level").selectOption("error");
      await eventually(async () => [
        ...new Set(await rows.evaluateAll((trs) => trs.map((tr) => tr.dataset.level))),
      ]).toEqual(["error"]);
      expect(await rows.allTextContents()).toContainEqual(
        expect.stringContaining("the flow computer stopped answering"),
      );
      const asked = g.requests
        .filter((r) => r.url.pathname === "/api/edge/agents/logs")
        .map((r) => r.url.searchParams.get("level"));
      expect(asked).toEqual([null, "error"]);
      await g.close();
    });

    it("test-reads the Modbus device through the agent: each variable's value and quality", async () => {
      const g = await guardedPage(browser, t.baseUrl);
      await signIn(g.page, t.baseUrl, supervisor);
      await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
      await g.page.goto(`${t.baseUrl}/#/agents?project=${projectId}`);
      await g.page.getByTestId("test-read").click();
      const results = g.page.getByTestId("test-read-results");
      await results.waitFor();
      expect(await results.locator('[data-variable="casing_pressure"] .value').textContent()).toBe("1,234");
      expect(await results.locator('[data-variable="tubing_pressure"] .value').textContent()).toBe("87");
      expect(await results.locator('[data-variable="casing_pressure"] .badge').textContent()).toBe("Good");
      expect(await g.page.getByTestId("test-read-result").getAttribute("data-ok")).toBe("true");
      // An OPC UA device offers browsing; a Modbus one does not.
      expect(await g.page.getByTestId("browse").count()).toBe(0);
      expect(g.errors).toEqual([]);
      await g.close();
    });

    it("browses node-opcua's server through the agent, folder by folder", async () => {
      const server = new OpcUaSeparator();
      await server.start(await freePort());
      try {
        const wellId = (
          await t.request<{ id: string }[]>(`/api/edge/projects/${projectId}/assets`, { token: admin })
        ).body[0]?.id;
        const opcua = await created(t, admin, `/api/edge/assets/${wellId}/devices`, {
          name: "Separador",
          protocol: "opc_ua",
          host: "127.0.0.1",
          port: server.port,
        });
        const g = await guardedPage(browser, t.baseUrl);
        await signIn(g.page, t.baseUrl, supervisor);
        await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
        await g.page.goto(`${t.baseUrl}/#/agents?project=${projectId}`);
        await g.page.getByTestId("check-device").selectOption(opcua);
        await g.page.getByTestId("browse").click();
        const nodes = g.page.getByTestId("browse-nodes");
        await nodes.getByRole("button", { name: "Open 1:Separator" }).click();
        await nodes.locator('[data-node="ns=1;s=Separator.Pressure"]').waitFor();
        expect(await nodes.locator('[data-node="ns=1;s=Separator.Pressure"]').textContent()).toContain(
          "Double",
        );
        const path = g.page.getByRole("navigation", { name: "OPC UA path" }).getByRole("button");
        expect(await path.allTextContents()).toEqual(["Objects folder", "1:Separator"]);
        const browsed = g.requests.filter((r) => r.url.pathname === `/api/edge/devices/${opcua}/browse`);
        expect(browsed.map((r) => r.headers.authorization?.startsWith("Bearer "))).toEqual([true, true]);
        expect(g.errors).toEqual([]);
        await g.close();
      } finally {
        await server.stop();
      }
    });

    it("a project whose agent never connected: test-read and browse say so, with the API's 409", async () => {
      const other = await manualProject(t, admin, "Campo Sur");
      const opcua = await created(t, admin, `/api/edge/assets/${other.wellId}/devices`, {
        name: "Separador",
        protocol: "opc_ua",
        host: "127.0.0.1",
      });
      await created(t, admin, `/api/edge/devices/${opcua}/variables`, {
        alias: "separator_pressure",
        data_type: "float64",
        address: "ns=1;s=Separator.Pressure",
      });
      const g = await guardedPage(browser, t.baseUrl);
      await signIn(g.page, t.baseUrl, (await t.admin()) as { email: string; password: string });
      await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
      await g.page.goto(`${t.baseUrl}/#/agents?project=${other.projectId}`);
      await g.page.getByTestId("agent-none").waitFor();
      const refused = g.page.getByTestId("check-refused");
      for (const action of ["test-read", "browse"]) {
        await g.page.getByTestId(action).click();
        const path = `/api/edge/devices/${opcua}/${action}`;
        await eventually(() => g.requests.some((r) => r.method === "POST" && r.url.pathname === path)).toBe(
          true,
        );
        await eventually(() => refused.textContent()).toContain("The agent is not connected:");
        expect(await refused.textContent()).toContain("the project has no agent connected yet");
        expect(await refused.getAttribute("role")).toBe("alert");
      }
      await g.close();
    });
  },
);
