import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { drainPhase } from "./sync/drain-phase.ts";
import { ingestPhase } from "./sync/ingest-phase.ts";
import { fmt, say } from "./sync/measure.ts";

// `npm run bench -- sync [--phase ingest|drain|all] [--runs 3]
//   ingest: [--duration 30] [--agents 4] [--assets 10] [--variables 20] [--batch-points 5000] [--window 8]
//   drain:  [--backlog 2000000] [--drain-assets 10] [--drain-variables 20] [--poll-ms 1000]
//           [--probe-assets 2] [--probe-ms 50] [--after 10]`
//
// Issue 5 targets, on one machine: a real CaudalServer in this process (HTTP + embedded broker,
// SQLite in a temp DATA_DIR, LOG_LEVEL silent); the load in separate processes.
//   ingest  agent-shaped telemetry batches over MQTT QoS 1 (loader.ts), committed through the same
//           ingest service as HTTP: ≥ 100,000 points/s
//   drain   a real CaudalAgent (agent-process.ts) draining a backlog from its outbox while it polls
//           the Modbus simulator live (probe.ts): ≥ 50,000 points/s, and live latency (poll →
//           readable through GET /api/telemetry/{asset_id}) p99 < 2 s meanwhile
// `--phase drain --backlog 10000000 --runs 1` measures how long a 10M-point backlog takes.

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      phase: { type: "string", default: "all" },
      runs: { type: "string", default: "3" },
      duration: { type: "string", default: "30" },
      agents: { type: "string", default: "4" },
      assets: { type: "string", default: "10" },
      variables: { type: "string", default: "20" },
      "batch-points": { type: "string", default: "5000" },
      window: { type: "string", default: "8" },
      backlog: { type: "string", default: "2000000" },
      "drain-assets": { type: "string", default: "10" },
      "drain-variables": { type: "string", default: "20" },
      "poll-ms": { type: "string", default: "1000" },
      "probe-assets": { type: "string", default: "2" },
      "probe-ms": { type: "string", default: "50" },
      after: { type: "string", default: "10" },
    },
  });
  const runs = Number(values.runs);
  const phases = values.phase === "all" ? ["ingest", "drain"] : [values.phase];
  const [l1, l5] = loadavg();
  say(
    `sync bench: ${JSON.stringify(values)}; load average before: ${fmt(l1 ?? 0, 2)} (1 min), ${fmt(l5 ?? 0, 2)} (5 min)`,
  );
  for (const phase of phases) {
    if (phase === "ingest") {
      await ingestPhase({
        runs,
        duration: Number(values.duration),
        agents: Number(values.agents),
        assets: Number(values.assets),
        variables: Number(values.variables),
        batchPoints: Number(values["batch-points"]),
        window: Number(values.window),
      });
    } else if (phase === "drain") {
      await drainPhase({
        runs,
        backlog: Number(values.backlog),
        assets: Number(values["drain-assets"]),
        variables: Number(values["drain-variables"]),
        pollMs: Number(values["poll-ms"]),
        probeAssets: Number(values["probe-assets"]),
        probeMs: Number(values["probe-ms"]),
        afterS: Number(values.after),
      });
    } else {
      throw new Error(`unknown phase ${phase} (ingest, drain or all)`);
    }
  }
}
