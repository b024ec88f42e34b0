import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpcUaSeparator } from "../../../scripts/sim/opcua-separator.ts";
import { freePort } from "../../../scripts/testing/free-port.ts";
import { agentVariable } from "../../testing/agent-variable.ts";
import { OpcUaDriver } from "./opcua-driver.ts";
import { setOpcUaLogSink } from "./opcua-log.ts";

describe("node-opcua's own messages in the agent", () => {
  const peer = new OpcUaSeparator();
  const pki = mkdtempSync(join(tmpdir(), "caudal-agent-pki-"));
  const entries: { level: string; message: string }[] = [];
  beforeAll(async () => {
    setOpcUaLogSink((level, message) => entries.push({ level, message }));
    await peer.start(await freePort());
  });
  afterAll(async () => {
    await peer.stop();
    peer.remove();
    rmSync(pki, { recursive: true, force: true });
  });

  it("are agent log lines, one per message; the first-use certificate is said as such, at info", async () => {
    const driver = new OpcUaDriver(
      {
        id: randomUUID(),
        asset_id: randomUUID(),
        name: "Separator",
        protocol: "opc_ua",
        host: "127.0.0.1",
        port: peer.port,
        slave_id: null,
        settings: { security_mode: "None", endpoint_path: "", trust_on_first_use: false },
        variables: [agentVariable("pressure", "ns=1;s=Separator.Pressure", "float64", 200)],
      },
      { timeoutMs: 5_000, pkiDir: pki },
    );
    try {
      await driver.connect();
    } finally {
      await driver.close();
    }
    expect(entries).toContainEqual({
      level: "info",
      message: "creating this agent's OPC UA certificate (first use; a few seconds)",
    });

    // node-opcua's multi-line warnings (NODE-OPCUA-W30 and the like) become one line.
    const ua = await import("./opcua-sdk.ts");
    ua.make_warningLog("test")("[NODE-OPCUA-W30 a warning\n ...   on two lines");
    expect(entries.at(-1)).toEqual({ level: "warn", message: "[NODE-OPCUA-W30 a warning on two lines" });
  }, 60_000);
});
