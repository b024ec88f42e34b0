import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../../logger.ts";
import { latestConfigMessages } from "../../../services/agents/deploy.ts";
import {
  auditOf,
  createDevice,
  createVariable,
  expectError,
} from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";
import { tableProbe } from "../../../testing/table-probe.ts";

type Device = {
  id: string;
  protocol: string;
  host: string | null;
  port: number | null;
  slave_id: number | null;
  settings: Record<string, unknown>;
};

const PASSWORD = "s3cret-0pc-pa55word";

/** Device `settings` per protocol (issue 9 §1): defaults, 400s naming the field, the write-only password. */
describe("edge devices: protocol settings", () => {
  let t: TestServer;
  let token: string;
  let projectId: string;
  let assetId: string;
  const logLines: string[] = [];
  beforeAll(async () => {
    t = await TestServer.start(
      { LOG_LEVEL: "debug" },
      { logger: createLogger("debug", (l) => logLines.push(l)) },
    );
    token = (await t.admin()).token;
    projectId = await t.project();
    assetId = await t.asset(projectId);
  });
  afterAll(async () => t.stop());

  const post = (body: Record<string, unknown>) =>
    t.request<Device>(`/api/edge/assets/${assetId}/devices`, { token, body: { name: "dev", ...body } });
  const put = (id: string, body: Record<string, unknown>) =>
    t.request<Device>(`/api/edge/devices/${id}`, { method: "PUT", token, body: { name: "dev", ...body } });

  it("OPC UA: defaults applied and shown (port 4840, security None, empty path, no TOFU)", async () => {
    const res = await post({ protocol: "opc_ua", host: "10.0.0.5" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ port: 4840 });
    expect(res.body.settings).toEqual({
      security_mode: "None",
      security_policy: "None",
      endpoint_path: "",
      username: null,
      password_set: false,
      trust_on_first_use: false,
    });
  });

  it("S7: rack 0, slot 1, port 102; DNP3: master 1, integrity 3600000, event null, port 20000", async () => {
    const s7 = await post({ protocol: "s7", host: "10.0.0.6" });
    expect(s7.status).toBe(201);
    expect(s7.body).toMatchObject({ port: 102, settings: { rack: 0, slot: 1 } });
    const dnp3 = await post({ protocol: "dnp3", host: "10.0.0.7", slave_id: 10 });
    expect(dnp3.status).toBe(201);
    expect(dnp3.body).toMatchObject({
      port: 20000,
      settings: { master_address: 1, integrity_poll_interval_ms: 3_600_000, event_poll_interval_ms: null },
    });
    const modbus = await post({ protocol: "modbus_tcp", host: "10.0.0.8" });
    expect(modbus.body).toMatchObject({ port: null, settings: {} });
  });

  it("keeps every given setting; an explicit port wins over the default", async () => {
    const res = await post({
      protocol: "opc_ua",
      host: "plc.example",
      port: 48010,
      settings: {
        security_mode: "SignAndEncrypt",
        security_policy: "Aes256_Sha256_RsaPss",
        endpoint_path: "/UA/Server",
        username: "operator",
        trust_on_first_use: true,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      port: 48010,
      settings: {
        security_mode: "SignAndEncrypt",
        security_policy: "Aes256_Sha256_RsaPss",
        endpoint_path: "/UA/Server",
        username: "operator",
        password_set: false,
        trust_on_first_use: true,
      },
    });
  });

  const bad: [string, Record<string, unknown>, string][] = [
    [
      "unknown security mode",
      { protocol: "opc_ua", settings: { security_mode: "Encrypt" } },
      "settings.security_mode",
    ],
    [
      "unknown policy",
      { protocol: "opc_ua", settings: { security_policy: "Basic128Rsa15" } },
      "settings.security_policy",
    ],
    [
      "mode Sign with policy None",
      { protocol: "opc_ua", settings: { security_mode: "Sign", security_policy: "None" } },
      "settings.security_policy",
    ],
    [
      "endpoint path with a space",
      { protocol: "opc_ua", settings: { endpoint_path: "/a b" } },
      "settings.endpoint_path",
    ],
    [
      "TOFU not a boolean",
      { protocol: "opc_ua", settings: { trust_on_first_use: "yes" } },
      "settings.trust_on_first_use",
    ],
    ["password without a username", { protocol: "opc_ua", settings: { password: "x" } }, "settings.username"],
    ["a setting of another protocol", { protocol: "opc_ua", settings: { rack: 0 } }, "settings"],
    ["rack 8", { protocol: "s7", settings: { rack: 8 } }, "settings.rack"],
    ["slot -1", { protocol: "s7", settings: { slot: -1 } }, "settings.slot"],
    [
      "master address above 65519",
      { protocol: "dnp3", settings: { master_address: 65520 } },
      "settings.master_address",
    ],
    [
      "integrity interval not an integer",
      { protocol: "dnp3", settings: { integrity_poll_interval_ms: 1.5 } },
      "settings.integrity_poll_interval_ms",
    ],
    [
      "event interval below 100 ms",
      { protocol: "dnp3", settings: { event_poll_interval_ms: 10 } },
      "settings.event_poll_interval_ms",
    ],
    [
      "master address equal to the outstation's",
      { protocol: "dnp3", slave_id: 1 },
      "settings.master_address",
    ],
    ["Modbus has no settings", { protocol: "modbus_tcp", settings: { rack: 0 } }, "settings"],
    ["settings not an object", { protocol: "s7", settings: "rack=0" }, "settings"],
    ["host given as a URL", { protocol: "opc_ua", host: "opc.tcp://10.0.0.5:4840" }, "host"],
  ];
  for (const [label, body, field] of bad) {
    it(`${label} → 400 (${field}), on POST and PUT`, async () => {
      const id = await createDevice(t, assetId);
      expectError(await post(body), 400, "ValidationFailed", field);
      expectError(await put(id, body), 400, "ValidationFailed", field);
    });
  }

  /** The configuration message the agent receives for the project's newest deployment (what the broker publishes). */
  const agentConfig = async (project: string) => {
    const message = (await latestConfigMessages(t.server.context)).find((m) => m.projectId === project);
    if (!message) throw new Error("no deployment");
    return message.message.config;
  };

  it("the OPC UA password is write-only: absent from responses, /full, audit rows and logs", async () => {
    const created = await post({
      protocol: "opc_ua",
      host: "10.0.0.5",
      settings: { username: "operator", password: PASSWORD },
    });
    expect(created.status).toBe(201);
    expect(created.body.settings).toMatchObject({ username: "operator", password_set: true });
    const id = created.body.id;
    // PUT without a password keeps it; the response still says it is set.
    const kept = await put(id, { protocol: "opc_ua", host: "10.0.0.6", settings: { username: "operator" } });
    expect(kept.status).toBe(200);
    expect(kept.body.settings).toMatchObject({ password_set: true });
    const responses = [
      created.text,
      kept.text,
      (await t.request(`/api/edge/devices/${id}`, { token })).text,
      (await t.request(`/api/edge/assets/${assetId}/devices`, { token })).text,
      (await t.request(`/api/edge/projects/${projectId}/full`, { token })).text,
    ];
    for (const text of responses) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain('"password"');
    }
    const audit = await auditOf(t, id);
    expect(audit.map((e) => e.action)).toEqual(["create", "update"]);
    for (const e of audit) expect(`${e.before} ${e.after}`).not.toContain(PASSWORD);
    const [row] = await tableProbe(t.server).query<{ settings: string; sealed: Buffer }>(
      "SELECT settings, settings_password_encrypted AS sealed FROM devices WHERE id = ?",
      [id],
    );
    if (!row) throw new Error("no device row");
    expect(row.settings).not.toContain(PASSWORD);
    expect(Buffer.isBuffer(row.sealed)).toBe(true);
    expect(row.sealed.toString("latin1")).not.toContain(PASSWORD);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join("\n")).not.toContain(PASSWORD);
  });

  it("the password reaches the agent only inside the deployment; null clears it", async () => {
    const project = await t.project();
    const asset = await t.asset(project);
    const device = await t.request<Device>(`/api/edge/assets/${asset}/devices`, {
      token,
      body: {
        name: "opc",
        protocol: "opc_ua",
        host: "10.0.0.5",
        settings: { username: "op", password: PASSWORD },
      },
    });
    await createVariable(t, device.body.id, { alias: "p", address: "ns=2;s=Well1.Pressure" });
    const deploy = async () => {
      const res = await t.request<{ id: string }>(`/api/edge/projects/${project}/deploy`, {
        method: "POST",
        token,
      });
      expect([200, 201]).toContain(res.status);
      const [row] = await tableProbe(t.server).query<{ config: string }>(
        "SELECT config FROM deployments WHERE id = ?",
        [res.body.id],
      );
      if (!row) throw new Error("no deployment row");
      // At rest the deployment holds the password sealed, never in the clear.
      expect(row.config).not.toContain(PASSWORD);
      return (await agentConfig(project)) as { devices: { settings?: Record<string, unknown> }[] };
    };
    const first = await deploy();
    expect(first.devices[0]?.settings).toMatchObject({
      username: "op",
      password: PASSWORD,
      security_mode: "None",
    });
    // The deployment history endpoint shows counts, not the configuration.
    const history = await t.request(`/api/edge/projects/${project}/deployments`, { token });
    expect(history.text).not.toContain(PASSWORD);
    const cleared = await t.request<Device>(`/api/edge/devices/${device.body.id}`, {
      method: "PUT",
      token,
      body: {
        name: "opc",
        protocol: "opc_ua",
        host: "10.0.0.5",
        settings: { username: "op", password: null },
      },
    });
    expect(cleared.body.settings).toMatchObject({ password_set: false });
    expect((await deploy()).devices[0]?.settings).toMatchObject({ username: "op", password: null });
  });

  it("the deployment carries effective settings; its hash is stable while nothing changes", async () => {
    const project = await t.project();
    const asset = await t.asset(project);
    const add = async (body: Record<string, unknown>) =>
      (await t.request<Device>(`/api/edge/assets/${asset}/devices`, { token, body: { name: "d", ...body } }))
        .body.id;
    const dnp3 = await add({ protocol: "dnp3", host: "10.0.0.7", slave_id: 10 });
    await createVariable(t, dnp3, { alias: "ai3", address: "g30:3", poll_interval_ms: 5000 });
    await createVariable(t, dnp3, {
      alias: "bi0",
      address: "g1:0",
      data_type: "bool",
      poll_interval_ms: 2000,
    });
    await add({ protocol: "opc_ua", host: "10.0.0.5", settings: { username: "op", password: PASSWORD } });
    await add({ protocol: "modbus_tcp", host: "10.0.0.8" });
    const deploy = async () => {
      const res = await t.request<{ id: string; config_hash: string }>(
        `/api/edge/projects/${project}/deploy`,
        {
          method: "POST",
          token,
        },
      );
      return {
        hash: res.body.config_hash,
        config: (await agentConfig(project)) as { devices: Record<string, unknown>[] },
      };
    };
    const first = await deploy();
    const byProtocol = (p: string) => first.config.devices.find((d) => d.protocol === p);
    // The event poll left to the variables follows the shortest of their intervals.
    expect(byProtocol("dnp3")).toMatchObject({
      port: 20000,
      slave_id: 10,
      settings: { master_address: 1, integrity_poll_interval_ms: 3_600_000, event_poll_interval_ms: 2000 },
    });
    expect(byProtocol("opc_ua")).toMatchObject({ port: 4840, settings: { password: PASSWORD } });
    // Modbus devices carry no settings key: their configuration is what it was before settings existed.
    expect(byProtocol("modbus_tcp")).not.toHaveProperty("settings");
    // The password is sealed with a fresh IV each time, but opened into the deployment: same hash.
    expect((await deploy()).hash).toBe(first.hash);
  });

  it("a protocol change re-validates settings and every variable's address (400, nothing written)", async () => {
    const id = (await post({ protocol: "s7", host: "10.0.0.6" })).body.id;
    await createVariable(t, id, { alias: "t1", data_type: "float32", address: "DB1,REAL0" });
    const before = (await t.request<Device>(`/api/edge/devices/${id}`, { token })).body;
    const res = await put(id, { protocol: "dnp3", host: "10.0.0.6" });
    expectError(res, 400, "ValidationFailed", "address");
    expect(res.body).toMatchObject({ message: expect.stringContaining('variable "t1"') });
    expect((await t.request<Device>(`/api/edge/devices/${id}`, { token })).body).toEqual(before);
    // S7 settings sent with the new protocol are refused too.
    expectError(
      await put(id, { protocol: "opc_ua", settings: { rack: 0 } }),
      400,
      "ValidationFailed",
      "settings",
    );
    // To OPC UA with no addresses to contradict it: fine, and the S7 defaults give way to OPC UA's.
    const other = (await post({ protocol: "s7", host: "10.0.0.6" })).body.id;
    await createVariable(t, other, { alias: "t2" });
    const moved = await put(other, { protocol: "opc_ua", host: "10.0.0.6" });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ port: 4840, settings: { security_mode: "None" } });
  });
});
