import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { TestServer } from "../../server/testing/harness.ts";
import { CaudalApi } from "./api-client.ts";
import { ensureDemoAccount } from "./demo-account.ts";
import { DEMO_RULES } from "./demo-field.ts";
import { type DemoOptions, type DemoSetup, provisionDemo } from "./provision.ts";

const tree = z.object({
  name: z.string(),
  timezone: z.string(),
  assets: z.array(
    z.object({
      name: z.string(),
      asset_type: z.string(),
      devices: z.array(
        z.object({
          id: z.uuid(),
          name: z.string(),
          port: z.number().nullable(),
          enabled: z.boolean(),
          variables: z.array(
            z.object({
              alias: z.string(),
              data_type: z.string(),
              register_address: z.number().nullable(),
              address: z.string().nullable(),
            }),
          ),
        }),
      ),
    }),
  ),
});

/** The demo provisioning against a real server (HTTP and broker), in its own data dir. */
describe("provisionDemo", () => {
  let t: TestServer;
  let dir: string;
  beforeEach(async () => {
    t = await TestServer.start();
    dir = mkdtempSync(join(tmpdir(), "caudal-demo-"));
  });
  afterEach(async () => {
    await t.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const options = (simPort = 5020): DemoOptions => ({
    baseUrl: t.baseUrl,
    dataDir: dir,
    mqttUrl: `mqtt://127.0.0.1:${t.server.broker.port}`,
    sim: { host: "127.0.0.1", port: simPort, opcUaPort: 4840 },
    agentLocalApiPort: 8081,
  });

  async function provision(simPort?: number): Promise<DemoSetup> {
    const result = await provisionDemo(options(simPort));
    if (!result.ok) throw new Error(result.reason);
    return result.setup;
  }

  async function projectTree(setup: DemoSetup) {
    const res = await t.request(`/api/edge/projects/${setup.projectId}/full`, { token: setup.accessToken });
    expect(res.status).toBe(200);
    return tree.parse(res.body);
  }

  it("creates the account, the project tree, the rules, the agent file and a deployment", async () => {
    const setup = await provision();
    expect(setup.accountCreated).toBe(true);
    expect(setup.agentTokenIssued).toBe(true);
    expect(setup.deployedVersion).toBe(1);
    expect(statSync(setup.credentialsFile).mode & 0o777).toBe(0o600);
    expect(statSync(setup.agentConfigFile).mode & 0o777).toBe(0o600);

    const project = await projectTree(setup);
    expect(project).toMatchObject({ name: "Demo field", timezone: "America/Bogota" });
    const byName = [...project.assets].sort((a, b) => b.name.localeCompare(a.name));
    const shape = byName.map((a) => ({
      name: a.name,
      type: a.asset_type,
      devices: a.devices.map((d) => ({
        name: d.name,
        port: d.port,
        tags: d.variables.map((v) => `${v.alias}@${v.register_address ?? v.address}:${v.data_type}`).sort(),
      })),
    }));
    expect(shape).toEqual([
      {
        name: "Well DF-1",
        type: "well",
        devices: [
          {
            name: "Wellhead PLC",
            port: 5020,
            tags: [
              "oil_flow_rate@4:float32",
              "wellhead_pressure@0:float32",
              "wellhead_temperature@2:float32",
            ],
          },
        ],
      },
      {
        name: "Tank TK-1",
        type: "tank",
        devices: [{ name: "Tank level PLC", port: 5020, tags: ["tank_level@6:float32"] }],
      },
      {
        name: "Separator SP-1",
        type: "station",
        devices: [
          {
            name: "Separator PLC",
            port: 4840,
            tags: [
              "separator_level@ns=1;s=Separator.Level:float32",
              "separator_pressure@ns=1;s=Separator.Pressure:float64",
              "separator_temperature@ns=1;s=Separator.Temperature:float64",
            ],
          },
        ],
      },
    ]);
    const rules = await t.request<{ name: string }[]>(`/api/alert-rules?project_id=${setup.projectId}`, {
      token: setup.accessToken,
    });
    expect(rules.body.map((r) => r.name).sort()).toEqual(DEMO_RULES.map((r) => r.name).sort());

    // The demo is not billed: the plan's invoice issued with the project is cancelled, none pending.
    const invoices = await t.request<{ status: string; amount_usd: number }[]>(
      `/api/billing/invoices?project_id=${setup.projectId}`,
      { token: setup.accessToken },
    );
    expect(invoices.status).toBe(200);
    expect(invoices.body.length).toBeGreaterThan(0);
    expect(invoices.body.filter((i) => i.status !== "cancelled")).toEqual([]);

    const agent = JSON.parse(readFileSync(setup.agentConfigFile, "utf8"));
    expect(agent).toMatchObject({
      version: 1,
      mqtt_url: options().mqttUrl,
      project_id: setup.projectId,
      data_dir: join(dir, "agent"),
      local_api_host: "127.0.0.1",
      local_api_port: 8081,
    });
  });

  it("reuses everything on a second run and deploys nothing new", async () => {
    const first = await provision();
    const agentFile = readFileSync(first.agentConfigFile, "utf8");
    const second = await provision();
    expect(second).toMatchObject({
      accountCreated: false,
      agentTokenIssued: false,
      deployedVersion: null,
      projectId: first.projectId,
      assetIds: first.assetIds,
    });
    expect(readFileSync(second.agentConfigFile, "utf8")).toBe(agentFile);
    const projects = await t.request<{ name: string }[]>("/api/edge/projects", { token: second.accessToken });
    expect(projects.body.filter((p) => p.name === "Demo field")).toHaveLength(1);
  });

  it("moves the devices to a new simulator port, keeping what a person changed, and deploys again", async () => {
    const first = await provision(5020);
    const device = (await projectTree(first)).assets.find((a) => a.name === "Tank TK-1")?.devices[0];
    if (!device) throw new Error("no tank device");
    const disabled = await t.request(`/api/edge/devices/${device.id}`, {
      method: "PUT",
      token: first.accessToken,
      body: {
        name: device.name,
        protocol: "modbus_tcp",
        host: "127.0.0.1",
        port: 5020,
        slave_id: 1,
        enabled: false,
      },
    });
    expect(disabled.status).toBe(200);

    const second = await provision(5021);
    expect(second.deployedVersion).toBe(2);
    const devices = (await projectTree(second)).assets
      .flatMap((a) => a.devices)
      .filter((d) => d.name !== "Separator PLC");
    expect(devices.map((d) => d.port)).toEqual([5021, 5021]);
    expect(Object.fromEntries(devices.map((d) => [d.name, d.enabled]))).toEqual({
      "Wellhead PLC": true,
      "Tank level PLC": false,
    });
  });

  it("issues a new agent token when the kept one was revoked", async () => {
    const first = await provision();
    const kept = JSON.parse(readFileSync(first.agentConfigFile, "utf8")).agent_token;
    const rotated = await t.request(`/api/edge/projects/${first.projectId}/agent-token`, {
      method: "POST",
      token: first.accessToken,
    });
    expect(rotated.status).toBe(201);
    const second = await provision();
    expect(second.agentTokenIssued).toBe(true);
    const agent = JSON.parse(readFileSync(second.agentConfigFile, "utf8"));
    expect(agent.agent_token).not.toBe(kept);
  });

  it("leaves a database with someone else's account alone", async () => {
    await t.admin();
    const result = await provisionDemo(options());
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/accounts already exist/) });
  });

  it("refuses a demo login that no longer works", async () => {
    await provision();
    writeFileSync(
      join(dir, "demo.json"),
      JSON.stringify({ email: "demo@example.com", password: "wrong-password" }),
    );
    const result = await provisionDemo(options());
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/is refused/) });
  });

  it("starts over when a first run stopped before the account existed", async () => {
    writeFileSync(
      join(dir, "demo.json"),
      JSON.stringify({ email: "demo@example.com", password: "never-registered" }),
      {
        mode: 0o600,
      },
    );
    const account = await ensureDemoAccount(new CaudalApi(t.baseUrl), join(dir, "demo.json"));
    expect(account).toMatchObject({ ok: true, created: true });
    const stored = JSON.parse(readFileSync(join(dir, "demo.json"), "utf8"));
    expect(stored.password).not.toBe("never-registered");
  });

  it("reports an unreadable demo login instead of crashing", async () => {
    writeFileSync(join(dir, "demo.json"), "{not json");
    const result = await provisionDemo(options());
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(/not a valid demo login/) });
  });
});
