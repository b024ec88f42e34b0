import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Browser, Download, Locator } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import { agentDistWithWinsw, manualProject, modbusDevice } from "./testing/agent-field.ts";
import { axeViolations } from "./testing/axe.ts";
import { BROWSER_TEST_TIMEOUT_MS, eventually, type GuardedPage, guardedPage } from "./testing/browser.ts";
import { signIn, startSite } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

type Variable = { id: string; alias: string; register_address: number | null; unit: string | null };
type Device = { id: string; name: string; settings: Record<string, unknown> };
type Rule = { id: string; name: string; threshold: number; is_enabled: boolean };

async function downloaded(download: Download): Promise<{ name: string; bytes: Buffer }> {
  return { name: download.suggestedFilename(), bytes: readFileSync(await download.path()) };
}

/** The message shown beside the input of `field` in `form`. */
const besideField = (form: Locator, field: string) =>
  form.locator(`[data-field="${field}"] [data-testid=field-error]`);

requirePeer("chromium", chromiumMissing).describe("the configuration page, in chromium", () => {
  let t: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  let admin: string;
  let projectId: string;
  let wellId: string;
  let deviceId: string;
  let supervisor: Awaited<ReturnType<TestServer["userWithRole"]>>;
  beforeAll(async () => {
    ({ t, browser, stop } = await startSite());
    admin = (await t.admin()).token;
    ({ projectId, wellId } = await manualProject(t, admin, "Campo Oriente"));
    deviceId = await modbusDevice(
      t,
      admin,
      wellId,
      { name: "RTU cabeza", port: 5020 },
      { casing_pressure: 0 },
    );
    supervisor = await t.userWithRole("supervisor", [projectId]);
  });
  afterAll(async () => stop?.());

  const api = async <T>(path: string) => {
    const res = await t.request<T>(path, { token: admin });
    return { status: res.status, body: res.body };
  };
  const variables = async () => (await api<Variable[]>(`/api/edge/devices/${deviceId}/variables`)).body;

  const open = async (): Promise<GuardedPage> => {
    const g = await guardedPage(browser, t.baseUrl);
    await signIn(g.page, t.baseUrl, supervisor);
    await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await g.page.goto(`${t.baseUrl}/#/configuration?project=${projectId}`);
    await g.page.getByTestId("devices").waitFor();
    return g;
  };

  /** Every state-changing call the page made carried the bearer token. */
  const allBearer = (g: GuardedPage) => {
    const changes = g.requests.filter((r) => r.method !== "GET" && !r.url.pathname.startsWith("/api/auth/"));
    expect(changes.length).toBeGreaterThan(0);
    for (const r of changes)
      expect(r.headers.authorization, `${r.method} ${r.url.pathname}`).toMatch(/^Bearer /);
  };

  it("a variable with bad fields: the API's messages beside those fields, nothing written; corrected, created, edited, deleted", async () => {
    const g = await open();
    await g.page.getByRole("button", { name: "Show variables of RTU cabeza" }).click();
    await g.page.getByTestId("add-variable").click();
    const form = g.page.getByTestId("variable-form");
    await form.getByLabel("Alias", { exact: true }).fill("flow_rate");
    await form.getByLabel("Register address").fill("70000");
    await form.getByLabel("Poll interval (ms)").fill("50");
    await form.getByRole("button", { name: "Create" }).click();

    await eventually(() => besideField(form, "register_address").textContent()).toBe(
      "must be between 0 and 65535",
    );
    expect(await besideField(form, "poll_interval_ms").textContent()).toBe(
      "must be between 100 and 86400000",
    );
    expect(await besideField(form, "alias").count()).toBe(0);
    const input = form.getByLabel("Register address");
    expect(await input.getAttribute("aria-invalid")).toBe("true");
    expect(await input.getAttribute("aria-describedby")).toContain("variable-form-register_address-error");
    expect(await input.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await axeViolations(g.page)).toEqual([]);
    // The API refused it: nothing was written.
    expect((await variables()).map((v) => v.alias)).toEqual(["casing_pressure"]);
    const posted = g.requests.filter((r) => r.method === "POST" && r.url.pathname.endsWith("/variables"));
    expect(posted).toHaveLength(1);

    await input.fill("2");
    await form.getByLabel("Poll interval (ms)").fill("1000");
    await form.getByLabel("Unit").fill("bbl/d");
    await form.getByRole("button", { name: "Create" }).click();
    await g.page.getByRole("status").getByText("Saved: flow_rate").waitFor();
    const row = g.page.getByTestId("variables").locator('[data-variable="flow_rate"]');
    await row.waitFor();
    expect(await variables()).toContainEqual(
      expect.objectContaining({ alias: "flow_rate", register_address: 2, unit: "bbl/d" }),
    );

    await row.getByRole("button", { name: "Edit flow_rate" }).click();
    await g.page.getByTestId("variable-form").getByLabel("Unit").fill("m3/d");
    await g.page.getByTestId("variable-form").getByRole("button", { name: "Save" }).click();
    await g.page.getByRole("status").getByText("Saved: flow_rate").waitFor();
    await eventually(async () => (await variables()).find((v) => v.alias === "flow_rate")?.unit).toBe("m3/d");

    await row.getByRole("button", { name: "Delete flow_rate" }).click();
    await row.getByRole("button", { name: "Delete", exact: true }).click();
    await g.page.getByRole("status").getByText("Deleted: flow_rate").waitFor();
    expect((await variables()).map((v) => v.alias)).toEqual(["casing_pressure"]);
    allBearer(g);
    expect(g.errors).toEqual([]);
    expect(g.blocked).toEqual([]);
    await g.close();
  });

  it("a device: a bad protocol setting is named beside its input; created, renamed and deleted", async () => {
    const devices = async () => (await api<Device[]>(`/api/edge/assets/${wellId}/devices`)).body;
    const g = await open();
    await g.page.getByRole("button", { name: "Add a device to Pozo 7" }).click();
    const form = g.page.getByTestId("device-form");
    await form.getByLabel("Name", { exact: true }).fill("CPU S7-1200");
    await form.getByLabel("Protocol").selectOption("s7");
    await form.getByLabel("Host or IP address").fill("10.20.0.15");
    await form.getByLabel("Rack").fill("9");
    await form.getByRole("button", { name: "Create" }).click();
    await eventually(() => besideField(form, "settings.rack").textContent()).toBe("must be between 0 and 7");
    expect((await devices()).map((d) => d.name)).toEqual(["RTU cabeza"]);

    await form.getByLabel("Rack").fill("0");
    await form.getByLabel("Slot").fill("1");
    await form.getByRole("button", { name: "Create" }).click();
    await g.page.getByRole("status").getByText("Saved: CPU S7-1200").waitFor();
    const created = (await devices()).find((d) => d.name === "CPU S7-1200");
    expect(created?.settings).toEqual({ rack: 0, slot: 1 });

    const row = g.page.locator(`[data-device="${created?.id}"]`);
    await row.getByRole("button", { name: "Edit CPU S7-1200" }).click();
    expect(await g.page.getByTestId("device-form").getByLabel("Rack").inputValue()).toBe("0");
    await g.page.getByTestId("device-form").getByLabel("Name", { exact: true }).fill("CPU compresor");
    await g.page.getByTestId("device-form").getByRole("button", { name: "Save" }).click();
    await g.page.getByRole("status").getByText("Saved: CPU compresor").waitFor();
    expect((await devices()).map((d) => d.name).sort()).toEqual(["CPU compresor", "RTU cabeza"]);

    await row.getByRole("button", { name: "Delete CPU compresor" }).click();
    await row.getByRole("button", { name: "Delete", exact: true }).click();
    await g.page.getByRole("status").getByText("Deleted: CPU compresor").waitFor();
    expect((await api(`/api/edge/devices/${created?.id}`)).status).toBe(404);
    allBearer(g);
    expect(g.errors).toEqual([]);
    await g.close();
  });

  it("an alert rule: a threshold that is not a number is named; created, disabled and deleted", async () => {
    const rules = async () => (await api<Rule[]>(`/api/alert-rules?project_id=${projectId}`)).body;
    const g = await open();
    await g.page.getByRole("button", { name: "Add a rule" }).click();
    const form = g.page.getByTestId("rule-form");
    await form.getByLabel("Name", { exact: true }).fill("Presión alta");
    await form.getByLabel("Variable alias").fill("casing_pressure");
    await form.getByLabel("Threshold").fill("alta");
    await form.getByRole("button", { name: "Create" }).click();
    await eventually(() => besideField(form, "threshold").textContent()).toBe("must be a number");
    expect(await rules()).toEqual([]);

    await form.getByLabel("Threshold").fill("1500,5");
    await form.getByRole("button", { name: "Create" }).click();
    await g.page.getByRole("status").getByText("Saved: Presión alta").waitFor();
    expect(await rules()).toEqual([
      expect.objectContaining({ name: "Presión alta", threshold: 1500.5, is_enabled: true }),
    ]);

    const row = g.page.getByTestId("rules").locator("tbody tr");
    await row.getByRole("button", { name: "Disable Presión alta" }).click();
    await g.page.getByRole("status").getByText("Disabled: Presión alta").waitFor();
    expect((await rules())[0]?.is_enabled).toBe(false);
    await row.getByRole("button", { name: "Delete Presión alta" }).click();
    await row.getByRole("button", { name: "Delete", exact: true }).click();
    await g.page.getByRole("status").getByText("Deleted: Presión alta").waitFor();
    expect(await rules()).toEqual([]);
    allBearer(g);
    expect(g.errors).toEqual([]);
    await g.close();
  });

  it("installers: what cannot be built is said instead of buttons; once built, the Linux script and binary, the Windows MSI, and enrollment codes", async () => {
    type Code = { id: string; purpose: string; status: string };
    const codes = async () => (await api<Code[]>(`/api/edge/projects/${projectId}/enrollment-codes`)).body;
    let g = await open();
    let section = g.page.locator("section[aria-labelledby=config-installers]");
    await section.getByTestId("no-codes").waitFor();

    // No agent is built, and this server builds none (AGENT_BUILD is off in tests): the section says
    // so, with what to do, in place of download buttons that could only fail.
    const linuxState = section.getByTestId("linux-agent-build");
    await eventually(() => linuxState.getAttribute("data-state")).toBe("unavailable");
    expect(await linuxState.textContent()).toMatch(
      /Not available on this server:\s+the agent executables are not built on this server, and this server cannot build them: AGENT_BUILD is off\. An administrator runs npm run build:agent/,
    );
    expect(await section.getByTestId("windows-agent-build").getAttribute("data-state")).toBe("unavailable");
    for (const button of ["linux-script", "linux-binary-x86_64", "windows-installer"])
      expect(await section.getByTestId(button).count(), button).toBe(0);
    expect(await codes()).toEqual([]);
    await g.close();

    const manifest = agentDistWithWinsw(t.config.AGENT_DIST_DIR);
    g = await open();
    section = g.page.locator("section[aria-labelledby=config-installers]");
    const [script] = await Promise.all([
      g.page.waitForEvent("download"),
      section.getByTestId("linux-script").click(),
    ]);
    const scriptFile = await downloaded(script);
    expect(scriptFile.name).toBe("caudal-agent-install.sh");
    expect(scriptFile.bytes.toString("utf8").startsWith("#!/bin/sh\n")).toBe(true);
    const codeRows = section.getByTestId("enrollment-codes").locator("tbody tr");
    await eventually(() => codeRows.allTextContents()).toEqual([
      expect.stringContaining("Linux install script"),
    ]);

    const [binary] = await Promise.all([
      g.page.waitForEvent("download"),
      section.getByTestId("linux-binary-x86_64").click(),
    ]);
    const binaryFile = await downloaded(binary);
    const sha = createHash("sha256").update(binaryFile.bytes).digest("hex");
    expect(sha).toBe(manifest.artifacts.find((a) => a.target === "linux-x86_64")?.sha256);

    // The Windows installer: a build is queued and followed; once it succeeded, the MSI downloads.
    await section.getByTestId("windows-installer").click();
    await eventually(() => section.getByTestId("msi-build").getAttribute("data-status"), {
      timeout: 90_000,
    }).toBe("succeeded");
    const [msi] = await Promise.all([
      g.page.waitForEvent("download"),
      section.getByTestId("windows-installer").click(),
    ]);
    const msiFile = await downloaded(msi);
    expect(msiFile.name).toMatch(/\.msi$/);
    expect(msiFile.bytes.subarray(0, 4).toString("hex")).toBe("d0cf11e0");

    // A code issued here is shown once, then revoked from the list.
    await section.getByTestId("issue-code").click();
    await eventually(() => section.getByTestId("issued-code").textContent()).toMatch(
      /cen_[A-Za-z0-9_-]{20,}/,
    );
    const manual = async () => (await codes()).find((c) => c.purpose === "manual");
    const issued = await manual();
    const issuedRow = section.locator(`[data-code="${issued?.id}"]`);
    await issuedRow.getByRole("button", { name: /^Revoke/ }).click();
    await eventually(() => issuedRow.textContent()).toContain("Revoked");
    expect((await manual())?.status).toBe("revoked");
    allBearer(g);
    expect(g.errors).toEqual([]);
    expect(g.blocked).toEqual([]);
    await g.close();
  });
});
