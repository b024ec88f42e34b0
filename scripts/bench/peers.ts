import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { backendOption, openBenchBackend, parseBackend } from "./backend.ts";
import { INFLUXD, influxMissing } from "./peers/influxdb.ts";
import { ingestWorkload } from "./peers/ingest-workload.ts";
import { MOSQUITTO, mosquittoMissing } from "./peers/mosquitto.ts";
import { mqttWorkload } from "./peers/mqtt-workload.ts";
import type { SideRun, Workload } from "./peers/side-run.ts";
import { storageWorkload } from "./peers/storage-workload.ts";
import { DISTURBED_PERCENT, disturbed, printSummary, type WorkloadRounds } from "./peers/summary.ts";
import { fmt, say } from "./sync/measure.ts";

// `npm run bench -- peers [ingest|mqtt|storage|all] [--backend sqlite|postgres] [--rounds 3] [--duration 20] [--points 10000000]
//   [--warmup 3] [--settle 30] [--caudal-env KEY=VALUE ...]`
//
// Issue 13 §1: Caudal side by side with the program people would pick instead, on this machine, one
// after the other, with the same load generator (peers/load.ts, its own process) and the same data
// (peers/sensor-walk.ts). Caudal is `node server/main.ts` with a fresh DATA_DIR, driven only through
// its public HTTP API and MQTT as an agent; the peers are Debian's influxd 1.6 and mosquitto 2.0,
// each with its own temp config and data dir on free ports (install: scripts/bench/peers/setup.sh).
//   ingest  1 asset × 10 variables at 1 Hz, 5,000 points per request, 4 connections, `duration` s:
//           points/s acknowledged; Caudal POST /api/telemetry/batch vs InfluxDB POST /write
//   mqtt    4 agents × 100 QoS 1 messages unanswered, 10 points per message, `duration` s: messages/s
//           committed by Caudal (application ack) vs delivered by Mosquitto to one QoS 1 subscriber
//   storage `points` points, 1 asset × 50 variables at 1 Hz, float32 random walk with noise, weeks
//           in the past: allocated bytes (`du -s -B1`) of the whole data directory per point, once
//           settled; InfluxDB with cold shards compacted after 1 s
// Every acknowledged point is read back and checked (value included) on both sides. Each round runs
// both sides (the order alternates); figures are medians of the rounds, with each side's CPU from
// /proc (its whole process tree) and the CPU of other work on the machine.

const WORKLOADS = ["ingest", "mqtt", "storage"] as const;

function version(command: string, args: string[]): string {
  const run = spawnSync(command, args, { encoding: "utf8" });
  const match = /(\d+\.\d+\.\d+)/.exec(`${run.stdout}${run.stderr}`);
  return match?.[1] ?? "?";
}

function parseEnv(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new Error(`--caudal-env wants KEY=VALUE, got "${pair}"`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
}

function positive(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got "${value}"`);
  return n;
}

async function runRounds(workload: Workload, peerName: string, rounds: number): Promise<WorkloadRounds> {
  say(`\n== ${workload.name}: Caudal vs ${peerName}, ${workload.unit} ==`);
  const result: WorkloadRounds = { workload, peerName, caudal: [], peer: [] };
  const show = (who: string, r: SideRun) =>
    say(
      `  ${who}: ${r.detail}${disturbed(r) ? `  ** other work above ${DISTURBED_PERCENT}% of a core **` : ""}`,
    );
  for (let i = 0; i < rounds; i++) {
    say(`round ${i + 1}`);
    // Alternating the order spreads any drift in the machine's other load over both sides.
    const peerFirst = i % 2 === 0;
    if (peerFirst) {
      result.peer.push(await workload.runPeer());
      show(peerName, result.peer[i] as SideRun);
    }
    result.caudal.push(await workload.runCaudal());
    show("Caudal", result.caudal[i] as SideRun);
    if (!peerFirst) {
      result.peer.push(await workload.runPeer());
      show(peerName, result.peer[i] as SideRun);
    }
  }
  return result;
}

export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      rounds: { type: "string", default: "3" },
      duration: { type: "string", default: "20" },
      points: { type: "string", default: "10000000" },
      warmup: { type: "string", default: "3" },
      settle: { type: "string", default: "30" },
      "caudal-env": { type: "string", multiple: true, default: [] },
      ...backendOption,
    },
  });
  const which = positionals[0] ?? "all";
  if (which !== "all" && !WORKLOADS.includes(which as (typeof WORKLOADS)[number])) {
    throw new Error(`unknown workload "${which}" (ingest, mqtt, storage or all)`);
  }
  const selected = which === "all" ? [...WORKLOADS] : [which];
  const missing = [
    selected.some((w) => w !== "mqtt") ? influxMissing() : null,
    selected.includes("mqtt") ? mosquittoMissing() : null,
  ].filter((m): m is string => m !== null);
  if (missing.length > 0) {
    process.stderr.write(
      `bench peers: ${missing.join("; ")}.\nInstall the peers (Debian's influxdb and mosquitto) as root with:\n` +
        "  sudo bash scripts/bench/peers/setup.sh\n",
    );
    process.exit(1);
  }
  const rounds = positive("rounds", values.rounds);
  const durationS = positive("duration", values.duration);
  const warmupS = positive("warmup", values.warmup);
  const caudalEnv = parseEnv(values["caudal-env"]);
  const influx = `InfluxDB ${version(INFLUXD, ["version"])}`;
  const mosquitto = `Mosquitto ${version(MOSQUITTO, ["-h"])}`;
  const [l1, l5] = loadavg();
  say(
    `peers bench: ${selected.join(", ")}; ${rounds} round(s); ${cpus().length} CPUs; load average before ` +
      `${fmt(l1 ?? 0, 2)} (1 min), ${fmt(l5 ?? 0, 2)} (5 min); ${JSON.stringify(values)}`,
  );
  const backendName = parseBackend(values.backend);
  if (backendName !== "sqlite" && selected.includes("storage")) {
    throw new Error(
      "--backend postgres: the storage workload measures DATA_DIR; use `telemetry --phase disk --backend postgres`",
    );
  }
  const backend = await openBenchBackend(backendName);
  const results: WorkloadRounds[] = [];
  try {
    for (const name of selected) {
      if (name === "ingest") {
        const w = ingestWorkload({
          durationS,
          warmupS,
          pointsPerRequest: 5000,
          connections: 4,
          caudalEnv,
          backend,
        });
        results.push(await runRounds(w, influx, rounds));
      } else if (name === "mqtt") {
        const w = mqttWorkload({ durationS, warmupS, agents: 4, window: 100, caudalEnv, backend });
        results.push(await runRounds(w, mosquitto, rounds));
      } else {
        const quietS = positive("settle", values.settle);
        const w = storageWorkload({
          points: positive("points", values.points),
          quietS,
          maxSettleS: Math.max(600, quietS * 10),
          caudalEnv,
        });
        results.push(await runRounds(w, influx, rounds));
      }
    }
  } finally {
    await backend.stop();
  }
  printSummary(results, rounds);
}
