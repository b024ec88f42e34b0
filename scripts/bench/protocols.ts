import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Dnp3Driver } from "../../agent/drivers/dnp3/dnp3-driver.ts";
import { OpcUaDriver } from "../../agent/drivers/opcua/opcua-driver.ts";
import { S7Driver } from "../../agent/drivers/s7/s7-driver.ts";
import { agentVariable } from "../../agent/testing/agent-variable.ts";
import type { AgentDevice, AgentVariable } from "../../shared/mqtt/agent-config.ts";
import { freePort } from "../testing/free-port.ts";
import { ask } from "./ipc.ts";

/*
 * `npm run bench -- protocols [opcua|s7|dnp3|all]` (issue 9, Performance). The agent's drivers run
 * in this process; the peers (node-opcua's server, snap7's server, the scripted DNP3 outstation)
 * in a child process, so the CPU measured here is the agent side's alone.
 *   - opcua: 10,000 monitored items sampled every second on one session, for 20 s: values
 *     received per second, this process's CPU (cores) and RSS.
 *   - s7: back-to-back multi-variable reads of 100 and of 1,000 REALs for 5 s each: reads/s, tags/s.
 *   - dnp3: back-to-back integrity polls of a 1,000-point outstation for 10 s: polls/s.
 */

const fmt = (v: number, digits = 0) => v.toLocaleString("en-US", { maximumFractionDigits: digits });
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const device = (
  protocol: AgentDevice["protocol"],
  port: number,
  variables: AgentVariable[],
  settings: Record<string, unknown>,
  slave: number | null = null,
): AgentDevice => ({
  id: randomUUID(),
  asset_id: randomUUID(),
  name: `bench ${protocol}`,
  protocol,
  host: "127.0.0.1",
  port,
  slave_id: slave,
  settings,
  variables,
});

/** CPU of this process over a window, in cores. */
function cpuMeter() {
  const startCpu = process.cpuUsage();
  const start = performance.now();
  return () => {
    const used = process.cpuUsage(startCpu);
    return (used.user + used.system) / 1000 / (performance.now() - start);
  };
}

async function opcua(peer: ChildProcess): Promise<void> {
  const count = 10_000;
  const port = await freePort();
  const started = performance.now();
  await ask(peer, { type: "opcua", port, count });
  console.log(
    `opcua: server with ${fmt(count)} variables up in ${fmt((performance.now() - started) / 1000, 1)} s`,
  );
  const pki = mkdtempSync(join(tmpdir(), "caudal-bench-agent-pki-"));
  const vars = Array.from({ length: count }, (_, i) => agentVariable(`t${i}`, `ns=1;s=Bench.T${i}`));
  const driver = new OpcUaDriver(
    device("opc_ua", port, vars, {
      security_mode: "None",
      endpoint_path: "",
      username: null,
      password: null,
      trust_on_first_use: false,
    }),
    {
      timeoutMs: 30_000,
      pkiDir: pki,
    },
  );
  try {
    const rssBefore = process.memoryUsage().rss;
    const t0 = performance.now();
    await driver.connect();
    await driver.read(vars);
    const setup = (performance.now() - t0) / 1000;
    const good = (await driver.read(vars)).filter((r) => r.quality === "good").length;
    console.log(
      `opcua: session, subscription and ${fmt(count)} monitored items in ${fmt(setup, 1)} s; ${fmt(good)} with a good value`,
    );
    // Steady state: the poller reads the cache every second; values change every second.
    const seconds = 20;
    let changes = 0;
    let previous = new Map((await driver.read(vars)).map((r) => [r.variableId, r.value]));
    const cpu = cpuMeter();
    for (let s = 0; s < seconds; s++) {
      await sleep(1000);
      const now = await driver.read(vars);
      for (const r of now) if (previous.get(r.variableId) !== r.value) changes += 1;
      previous = new Map(now.map((r) => [r.variableId, r.value]));
    }
    const cores = cpu();
    const rss = process.memoryUsage().rss;
    console.log(
      `opcua: ${fmt(changes / seconds)} value changes/s received over ${seconds} s; agent-side CPU ${fmt(cores, 3)} cores (target < 0.5); RSS ${fmt(rss / 2 ** 20)} MB (+${fmt((rss - rssBefore) / 2 ** 20)} MB for the session and items)`,
    );
  } finally {
    await driver.close();
    rmSync(pki, { recursive: true, force: true });
  }
}

async function s7(peer: ChildProcess): Promise<void> {
  const { port } = await ask<{ port: number }>(peer, { type: "s7" });
  for (const tags of [100, 1000]) {
    const vars = Array.from({ length: tags }, (_, i) => agentVariable(`r${i}`, `DB1,REAL${i * 4}`));
    const driver = new S7Driver(device("s7", port, vars, { rack: 0, slot: 1 }), { timeoutMs: 5000 });
    await driver.connect();
    try {
      await driver.read(vars);
      const seconds = 5;
      const until = performance.now() + seconds * 1000;
      const cpu = cpuMeter();
      let reads = 0;
      while (performance.now() < until) {
        const results = await driver.read(vars);
        if (results.some((r) => r.quality !== "good")) throw new Error("s7: a bad tag in the bench");
        reads += 1;
      }
      console.log(
        `s7: ${tags} REALs per read: ${fmt(reads / seconds)} reads/s, ${fmt((reads * tags) / seconds)} tags/s; agent-side CPU ${fmt(cpu(), 2)} cores`,
      );
    } finally {
      await driver.close();
    }
  }
}

async function dnp3(peer: ChildProcess): Promise<void> {
  const points = 1000;
  const { port } = await ask<{ port: number }>(peer, { type: "dnp3", points });
  const vars = [agentVariable("p0", "g30:0"), agentVariable("p999", `g30:${points - 1}`)];
  // An integrity poll every millisecond: as fast as request, 3 fragments and their confirms allow.
  const driver = new Dnp3Driver({
    host: "127.0.0.1",
    port,
    outstationAddress: 10,
    masterAddress: 1,
    integrityPollIntervalMs: 1,
    eventPollIntervalMs: 3_600_000,
    timeoutMs: 5000,
  });
  await driver.connect();
  try {
    const seconds = 10;
    const cpu = cpuMeter();
    const count = async () => (await ask<{ count: number }>(peer, { type: "integrityPolls" })).count;
    const before = await count();
    await sleep(seconds * 1000);
    const polls = (await count()) - before;
    const results = await driver.read(vars);
    if (results.some((r) => r.quality !== "good")) throw new Error("dnp3: a bad point in the bench");
    console.log(
      `dnp3: ${fmt(polls / seconds, 1)} integrity polls/s of ${fmt(points)} points (3 fragments each, confirmed); agent-side CPU ${fmt(cpu(), 2)} cores`,
    );
  } finally {
    await driver.close();
  }
}

export async function run(args: string[]): Promise<void> {
  const which = args[0] ?? "all";
  if (!["opcua", "s7", "dnp3", "all"].includes(which))
    throw new Error("usage: npm run bench -- protocols [opcua|s7|dnp3|all]");
  const peer = fork(new URL("./protocols/peer-process.ts", import.meta.url), [], { stdio: "inherit" });
  try {
    if (which === "s7" || which === "all") await s7(peer);
    if (which === "dnp3" || which === "all") await dnp3(peer);
    if (which === "opcua" || which === "all") await opcua(peer);
  } finally {
    await ask(peer, { type: "stop" }).catch(() => {});
    peer.kill();
  }
}
