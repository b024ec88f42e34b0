import { type ChildProcess, fork, spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { AgentStore } from "../../agent/store/agent-store.ts";
import { agentArtifactFile } from "../../shared/distribution/agent-manifest.ts";
import { configHash } from "../../shared/mqtt/agent-config.ts";
import { builtAgentBinaries } from "../testing/agent-binaries.ts";
import { freePort } from "../testing/free-port.ts";
import { runtimeConfig } from "./agent.ts";
import { ask } from "./ipc.ts";

// `npm run bench -- agent-binary [--runs 3] [--devices 2] [--tags 5000] [--duration 30] [--exe FILE]
//   [--node-options "<flags>"] [--env NAME=VALUE]...`
//
// The x86_64 single executable as systemd runs it (the Environment= lines of
// systemd/caudal-agent.service: MALLOC_ARENA_MAX, NODE_OPTIONS), with no Node on PATH:
//   cold start  from exec to the first good value on its local API (the first poll stored), with the
//               devices × tags configuration already in its store, as after a reboot;
//   rss         its RSS (from /proc) while polling devices × tags float32 at 1 s; issue 10's target is
//               ≤ 100 MB at 10,000 tags. At the end, its anonymous part (heaps) and its file-backed
//               part (the executable's pages: Node's code and the SEA blob).
// --exe measures another build; --node-options and --env override the unit's settings (to compare
// V8 flags).
// Before each run the executable's pages are written back and dropped from the page cache, so it
// is mapped from disk as after a reboot. A file just written (built, or downloaded by the install
// script) sits in the page cache in large folios, and mapping one page of those maps the whole
// folio: the same agent then shows up to ~30 MB more file-backed RSS (89 MB instead of 56).
// The Modbus devices are scripts/bench/agent/sim.ts; the broker URL points at a closed port, so the
// agent buffers as during an outage (what sync costs is `npm run bench -- sync`).

const say = (line: string) => process.stdout.write(`${line}\n`);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};
/** Writes `file` back and drops its pages from the page cache (posix_fadvise DONTNEED, through dd). */
function dropFromPageCache(file: string): void {
  const fd = openSync(file, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  const dd = spawnSync("dd", [`if=${file}`, "iflag=nocache", "count=0", "status=none"], { encoding: "utf8" });
  if (dd.status !== 0) throw new Error(`dd could not drop ${file} from the page cache: ${dd.stderr}`);
}

const SIM_FILE = fileURLToPath(new URL("./agent/sim.ts", import.meta.url));
const UNIT_FILE = fileURLToPath(new URL("../../systemd/caudal-agent.service", import.meta.url));

/** The unit's `Environment=NAME=VALUE` lines, but AGENT_CONFIG (the bench writes its own). */
function unitEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const m of readFileSync(UNIT_FILE, "utf8").matchAll(/^Environment=([A-Z_]+)=(.*)$/gm))
    if (m[1] && m[1] !== "AGENT_CONFIG") env[m[1]] = m[2] ?? "";
  return env;
}

function procStat(pid: number): { rssMb: number; anonMb: number; fileMb: number; cpuS: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const mb = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN) / 1024;
  // utime and stime, fields 14 and 15, in clock ticks (100 per second on Linux).
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return { rssMb: mb("VmRSS"), anonMb: mb("RssAnon"), fileMb: mb("RssFile"), cpuS: ticks / 100 };
}

type Run = {
  coldStartMs: number;
  rssMaxMb: number;
  rssEndMb: number;
  anonEndMb: number;
  fileEndMb: number;
  cores: number;
  good: number;
};

async function oneRun(
  exe: string,
  runEnv: Record<string, string>,
  devices: number,
  tags: number,
  durationS: number,
): Promise<Run> {
  const sim: ChildProcess = fork(SIM_FILE, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const dir = mkdtempSync(join(tmpdir(), "caudal-bench-sea-"));
  let agent: ChildProcess | undefined;
  try {
    const { ports } = await ask<{ ports: number[] }>(sim, { type: "start", devices, tags, tickMs: 250 });
    const config = runtimeConfig(ports, tags, 1000);
    const dataDir = join(dir, "data");
    const store = new AgentStore(dataDir, { maxBytes: 1 << 30, onDrop: () => {} });
    store.open();
    store.saveAppliedConfig({
      deploymentId: randomUUID(),
      version: 1,
      hash: configHash(config),
      config,
      appliedAt: Date.now(),
    });
    store.close();
    const port = await freePort();
    const closed = await freePort();
    writeFileSync(
      join(dir, "agent.json"),
      JSON.stringify({
        version: 1,
        mqtt_url: `mqtt://127.0.0.1:${closed}`,
        project_id: config.project_id,
        agent_token: "bench-token-not-used-0000",
        data_dir: dataDir,
        local_api_port: port,
      }),
    );
    mkdirSync(join(dir, "bin"));
    const env = { ...runEnv, PATH: join(dir, "bin"), HOME: dir, AGENT_CONFIG: join(dir, "agent.json") };
    dropFromPageCache(exe);
    const t0 = performance.now();
    agent = spawn(exe, [], { env, stdio: "ignore" });
    const pid = agent.pid ?? 0;
    let coldStartMs = Number.NaN;
    for (;;) {
      if (agent.exitCode !== null) throw new Error(`the agent exited with ${agent.exitCode}`);
      if (performance.now() - t0 > 60_000) throw new Error("no good value within 60 s");
      try {
        const res = await fetch(`http://127.0.0.1:${port}/status`);
        const body = (await res.json()) as { last_values: { quality: string }[] };
        if (body.last_values.some((v) => v.quality === "good")) {
          coldStartMs = performance.now() - t0;
          break;
        }
      } catch {
        // Not listening yet.
      }
      await sleep(10);
    }
    await sleep(5_000);
    const start = procStat(pid);
    let rssMaxMb = start.rssMb;
    const end = performance.now() + durationS * 1000;
    while (performance.now() < end) {
      await sleep(250);
      rssMaxMb = Math.max(rssMaxMb, procStat(pid).rssMb);
    }
    const last = procStat(pid);
    const res = await fetch(`http://127.0.0.1:${port}/status`);
    const body = (await res.json()) as { last_values: { quality: string }[] };
    return {
      coldStartMs,
      rssMaxMb,
      rssEndMb: last.rssMb,
      anonEndMb: last.anonMb,
      fileEndMb: last.fileMb,
      cores: (last.cpuS - start.cpuS) / durationS,
      good: body.last_values.filter((v) => v.quality === "good").length,
    };
  } finally {
    agent?.kill("SIGTERM");
    await ask(sim, { type: "stop" }).catch(() => undefined);
    sim.kill();
    await sleep(500);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      runs: { type: "string", default: "3" },
      devices: { type: "string", default: "2" },
      tags: { type: "string", default: "5000" },
      duration: { type: "string", default: "30" },
      exe: { type: "string" },
      "node-options": { type: "string" },
      env: { type: "string", multiple: true },
    },
  });
  const runs = Number(values.runs);
  const devices = Number(values.devices);
  const tags = Number(values.tags);
  const runEnv = unitEnvironment();
  if (values["node-options"] !== undefined) runEnv.NODE_OPTIONS = values["node-options"];
  for (const pair of values.env ?? []) {
    const at = pair.indexOf("=");
    if (at < 1) throw new Error(`--env takes NAME=VALUE, not "${pair}"`);
    runEnv[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const built = values.exe ?? join((await builtAgentBinaries()).dir, agentArtifactFile("linux-x86_64"));
  const home = mkdtempSync(join(tmpdir(), "caudal-bench-sea-exe-"));
  const exe = join(home, "caudal-agent");
  linkSync(built, exe);
  const version = spawnSync(exe, ["--version"], { encoding: "utf8", env: { PATH: "" } }).stdout.trim();
  say(`${version}; ${devices} devices × ${tags} float32 tags at 1 s; ${runs} runs of ${values.duration} s`);
  say(
    `environment: ${Object.entries(runEnv)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
  );
  const results: Run[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const r = await oneRun(exe, runEnv, devices, tags, Number(values.duration));
      results.push(r);
      say(
        `run ${i + 1}: cold start to first poll ${r.coldStartMs.toFixed(0)} ms, RSS max ${r.rssMaxMb.toFixed(1)} MB (end ${r.rssEndMb.toFixed(1)} MB: anon ${r.anonEndMb.toFixed(1)}, file ${r.fileEndMb.toFixed(1)}), ${r.cores.toFixed(3)} cores, ${r.good} good tags`,
      );
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  const m = (f: (r: Run) => number) => median(results.map(f));
  say(
    `median: cold start ${m((r) => r.coldStartMs).toFixed(0)} ms, RSS max ${m((r) => r.rssMaxMb).toFixed(1)} MB (target ≤ 100 MB at 10,000 tags; end: anon ${m((r) => r.anonEndMb).toFixed(1)}, file ${m((r) => r.fileEndMb).toFixed(1)}), ${m((r) => r.cores).toFixed(3)} cores`,
  );
  say(JSON.stringify({ version, env: runEnv, runs: results }));
}
