import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpcUaSeparator } from "../../../scripts/sim/opcua-separator.ts";
import { freePort } from "../../../scripts/testing/free-port.ts";
import type { AgentDevice } from "../../../shared/mqtt/agent-config.ts";
import { agentVariable } from "../../testing/agent-variable.ts";
import { LinkError } from "../driver.ts";
import { OpcUaDriver } from "./opcua-driver.ts";

const VARS = [
  agentVariable("pressure", "ns=1;s=Separator.Pressure", "float64", 200),
  agentVariable("level", "ns=1;s=Separator.Level", "float32", 200),
  agentVariable("running", "ns=1;s=Separator.Running", "bool", 200),
];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Issue 9 §2 at the driver level, against node-opcua's own server (a peer we did not write). */
describe("OPC UA driver against the node-opcua server", () => {
  const peer = new OpcUaSeparator();
  const pki = mkdtempSync(join(tmpdir(), "caudal-agent-pki-"));
  const device = (settings: Record<string, unknown>, port = peer.port): AgentDevice => ({
    id: randomUUID(),
    asset_id: randomUUID(),
    name: "Separator",
    protocol: "opc_ua",
    host: "127.0.0.1",
    port,
    slave_id: null,
    settings: {
      security_mode: "None",
      endpoint_path: "",
      username: null,
      password: null,
      trust_on_first_use: false,
      ...settings,
    },
    variables: VARS,
  });
  const valuesOf = async (driver: OpcUaDriver) =>
    Object.fromEntries((await driver.read(VARS)).map((r, i) => [VARS[i]?.alias ?? "", r]));

  beforeAll(async () => {
    await peer.start(await freePort());
  }, 60_000);
  afterAll(async () => {
    await peer.stop();
    peer.remove();
    rmSync(pki, { recursive: true, force: true });
  });

  it("security None: values come from the subscription, and a change on the server arrives", async () => {
    const driver = new OpcUaDriver(device({}), { timeoutMs: 3000, pkiDir: pki });
    await driver.connect();
    try {
      const first = await valuesOf(driver);
      expect(first.pressure).toMatchObject({ quality: "good", value: 245.5 });
      expect(first.level).toMatchObject({ quality: "good", value: 3.25 });
      expect(first.running).toMatchObject({ quality: "good", value: 1 });
      peer.values.pressure = 251.75;
      await until("the new pressure", async () =>
        (await valuesOf(driver)).pressure?.value === 251.75 ? true : undefined,
      );
    } finally {
      await driver.close();
    }
  }, 60_000);

  it("an unknown NodeId is that variable's config_error", async () => {
    const missing = agentVariable("missing", "ns=1;s=Separator.Nothing", "float32");
    const driver = new OpcUaDriver(device({}), { timeoutMs: 3000, pkiDir: pki });
    await driver.connect();
    try {
      const [result] = await driver.read([missing]);
      expect(result?.quality).toBe("config_error");
      expect(result?.detail).toContain("BadNodeIdUnknown");
    } finally {
      await driver.close();
    }
  }, 60_000);

  it("SignAndEncrypt/Basic256Sha256 with a username: refused until the server's certificate is trusted, then read", async () => {
    const secure = device({
      security_mode: "SignAndEncrypt",
      security_policy: "Basic256Sha256",
      username: OpcUaSeparator.USER,
      password: OpcUaSeparator.PASSWORD,
    });
    const driver = new OpcUaDriver(secure, { timeoutMs: 3000, pkiDir: pki });
    await expect(driver.connect()).rejects.toBeInstanceOf(LinkError);
    // The agent's own certificate was made in its PKI, and the server's landed in rejected/.
    expect(readdirSync(join(pki, "own", "certs")).length).toBeGreaterThan(0);
    const rejected = readdirSync(join(pki, "rejected"));
    expect(rejected.length).toBeGreaterThan(0);
    // The operator trusts it by moving the file (what `caudal-agent trust` does), no restart.
    mkdirSync(join(pki, "trusted", "certs"), { recursive: true });
    for (const file of rejected) renameSync(join(pki, "rejected", file), join(pki, "trusted", "certs", file));
    await driver.connect();
    try {
      expect((await valuesOf(driver)).pressure?.quality).toBe("good");
    } finally {
      await driver.close();
    }
    const wrong = new OpcUaDriver(device({ ...secure.settings, password: "not-it" }), {
      timeoutMs: 3000,
      pkiDir: pki,
    });
    await expect(wrong.connect()).rejects.toBeInstanceOf(LinkError);
  }, 90_000);

  it("a server restart: reads fail with LinkError, and a new connect reads again", async () => {
    const driver = new OpcUaDriver(device({}), { timeoutMs: 2000, pkiDir: pki });
    await driver.connect();
    expect((await valuesOf(driver)).pressure?.quality).toBe("good");
    const port = peer.port;
    await peer.stop();
    await until(
      "the link to be seen lost",
      async () => {
        try {
          await driver.read(VARS);
          return undefined;
        } catch (err) {
          return err instanceof LinkError ? true : undefined;
        }
      },
      20_000,
    );
    await driver.close();
    await peer.start(port);
    await driver.connect();
    try {
      expect((await valuesOf(driver)).pressure?.quality).toBe("good");
    } finally {
      await driver.close();
    }
  }, 90_000);
});
