import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { freePort } from "../testing/free-port.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("the demo's PLC simulator (npm start's plc-sim)", () => {
  it("says in plain lines where it listens, with none of node-opcua's warnings, and stops on SIGTERM", async () => {
    const [port, opcUaPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, ["scripts/sim/plc-simulator.ts"], {
      cwd: root,
      env: { PATH: process.env.PATH, SIM_PORT: String(port), OPCUA_SIM_PORT: String(opcUaPort) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (b: Buffer) => {
      output += b.toString();
    });
    child.stderr.on("data", (b: Buffer) => {
      output += b.toString();
    });
    const exit = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const deadline = Date.now() + 30_000;
    while (!output.includes("OPC UA opc.tcp://") && child.exitCode === null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    // Past start-up: a warning printed while the first values are read would show too.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);

    expect(output).not.toMatch(/NODE-OPCUA|W30|please wait/);
    expect(output.trim().split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(`^\\d\\d:\\d\\d:\\d\\d the well's PLC is listening: Modbus TCP 127\\.0\\.0\\.1:${port}$`),
      ),
      expect.stringMatching(
        new RegExp(
          `^\\d\\d:\\d\\d:\\d\\d the separator is listening: OPC UA opc\\.tcp://127\\.0\\.0\\.1:${opcUaPort}$`,
        ),
      ),
    ]);
  }, 40_000);
});
