import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { processCpuMs } from "../sync/measure.ts";
import { CpuMeter, treeCpuMs } from "./process-cpu.ts";

// A parent that idles while two workers spin for 400 ms of CPU each (as a cluster primary and its
// workers): one exits, the other stays.
const SPIN =
  "const t = process.cpuUsage(); while (process.cpuUsage(t).user + process.cpuUsage(t).system < 400e3) {}";
const PARENT = `
const { spawn } = require("node:child_process");
const exits = spawn(process.execPath, ["-e", ${JSON.stringify(SPIN)}], { stdio: "inherit" });
const stays = spawn(process.execPath, ["-e", ${JSON.stringify(`${SPIN}; console.log("spun"); setTimeout(() => {}, 60_000)`)}], { stdio: ["ignore", "pipe", "inherit"] });
let done = 0;
const one = () => { if (++done === 2) console.log("workers done"); };
exits.on("exit", one);
stays.stdout.once("data", one);
setTimeout(() => {}, 60_000);
`;

describe("treeCpuMs", () => {
  it("counts the CPU of a process's descendants, alive or exited", async () => {
    const parent = spawn(process.execPath, ["-e", PARENT], {
      stdio: ["ignore", "pipe", "inherit"],
      detached: true,
    });
    try {
      const pid = parent.pid ?? 0;
      const meter = new CpuMeter({ side: pid });
      let out = "";
      parent.stdout.on("data", (c: Buffer) => {
        out += c.toString();
      });
      while (!out.includes("workers done")) await once(parent.stdout, "data");
      const reading = meter.read();
      const own = processCpuMs(pid) ?? 0;
      expect(treeCpuMs(pid)).toBeGreaterThanOrEqual(own + 750);
      expect(reading.processes.side).toBeGreaterThan(0);
      expect(treeCpuMs(999_999_999)).toBe(0);
    } finally {
      // The parent's process group: it and the worker that stays.
      process.kill(-(parent.pid ?? 0), "SIGKILL");
    }
  });
});
