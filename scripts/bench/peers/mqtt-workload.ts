import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { BenchBackend } from "../backend.ts";
import { ask } from "../ipc.ts";
import { fmt } from "../sync/measure.ts";
import { CaudalSide } from "./caudal.ts";
import { withChild } from "./children.ts";
import type { VerifyReport } from "./load.ts";
import { MosquittoPeer } from "./mosquitto.ts";
import type { MqttLane, MqttLoadReport, MqttLoadRequest } from "./mqtt-load.ts";
import { CpuMeter } from "./process-cpu.ts";
import type { SeriesSpec } from "./series-log.ts";
import { describeCheck, describeCpu, type SideRun, type Workload } from "./side-run.ts";
import type { CollectReport } from "./subscriber.ts";

export type MqttOptions = {
  durationS: number;
  warmupS: number;
  agents: number;
  window: number;
  caudalEnv: Record<string, string>;
  /** The engine Caudal runs on (`--backend`). */
  backend: BenchBackend;
};

const DAY_MS = 86_400_000;
const VARIABLES = 10;

type Publisher = { projectId: string; assetId: string; agentToken: string | null };

/** Each agent's lane: a new agent id (its seq starts at 1) and its own readings, from `startMs`. */
function lanes(publishers: Publisher[], seed: number, startMs: number): MqttLane[] {
  return publishers.map((p, i) => {
    const spec: SeriesSpec = {
      assetId: p.assetId,
      seed: seed + i,
      variables: VARIABLES,
      startMs,
      blockSeconds: 1,
    };
    return { agentId: randomUUID(), projectId: p.projectId, agentToken: p.agentToken, spec };
  });
}

const request = (
  o: MqttOptions,
  target: MqttLoadRequest["target"],
  url: string,
  l: MqttLane[],
  durationS: number,
) => ({ type: "mqtt", target, url, lanes: l, window: o.window, durationS }) satisfies MqttLoadRequest;

const startOf = (daysAgo: number) => Math.floor((Date.now() - daysAgo * DAY_MS) / 1000) * 1000;

const expect = (subscriber: ChildProcess, l: MqttLane[]) =>
  ask(subscriber, { type: "expect", lanes: l.map((lane) => ({ agentId: lane.agentId, spec: lane.spec })) });

function loadLine(report: MqttLoadReport): string {
  const errors = report.errorAcks ? `, ${report.errorAcks} refused (${report.firstError})` : "";
  const unanswered = report.unanswered ? `, ** ${report.unanswered} never answered **` : "";
  return (
    `${fmt(report.published)} published, ${fmt(report.acknowledged)} answered${errors}${unanswered}, ` +
    `publish → answer p50 ${fmt(report.p50Ms)} ms, p99 ${fmt(report.p99Ms)} ms`
  );
}

/** Mosquitto: messages/s delivered to one QoS 1 subscriber, from the first publish to the last delivery. */
async function mosquittoRound(o: MqttOptions): Promise<SideRun> {
  const broker = await MosquittoPeer.start(o.window);
  try {
    return await withChild("./subscriber.ts", (subscriber: ChildProcess) =>
      withChild("./load.ts", async (loader: ChildProcess) => {
        await ask(subscriber, { type: "subscribe", url: broker.url });
        const publishers = Array.from({ length: o.agents }, () => ({
          projectId: randomUUID(),
          assetId: randomUUID(),
          agentToken: null,
        }));
        // A warm-up on an older range, which the subscriber drains before the measured run starts.
        const warm = lanes(publishers, 101, startOf(60));
        await expect(subscriber, warm);
        const warmReport = await ask<MqttLoadReport>(
          loader,
          request(o, "mosquitto", broker.url, warm, o.warmupS),
        );
        await ask<CollectReport>(subscriber, {
          type: "collect",
          published: warmReport.perLane,
          quietMs: 2000,
        });
        const measured = lanes(publishers, 201, startOf(30));
        await expect(subscriber, measured);
        const meter = new CpuMeter({
          side: broker.program.pid,
          loader: loader.pid,
          subscriber: subscriber.pid,
        });
        const report = await ask<MqttLoadReport>(
          loader,
          request(o, "mosquitto", broker.url, measured, o.durationS),
        );
        const collected = await ask<CollectReport>(subscriber, {
          type: "collect",
          published: report.perLane,
          quietMs: 10_000,
        });
        const cpu = meter.read();
        const windowS = (collected.lastAtMs - report.startedAtMs) / 1000;
        const value = collected.delivered > 0 ? collected.delivered / windowS : 0;
        return {
          value,
          cpu: cpu.processes.side ?? 0,
          loadCpu: (cpu.processes.loader ?? 0) + (cpu.processes.subscriber ?? 0),
          others: cpu.others,
          check: collected.check,
          detail:
            `${fmt(value)} messages/s delivered (${fmt(collected.delivered)} in ` +
            `${fmt(collected.delivered > 0 ? windowS : 0, 1)} s); ${loadLine(report)}; ` +
            `${describeCpu("mosquitto", cpu, ["loader", "subscriber"])}; delivered: ${describeCheck(collected.check)}`,
        };
      }),
    );
  } finally {
    await broker.stop();
  }
}

/** Caudal: messages/s committed (the application ack follows the commit), from the first publish to the last ack. */
async function caudalRound(o: MqttOptions): Promise<SideRun> {
  const caudal = await CaudalSide.start(o.caudalEnv, o.backend);
  try {
    const publishers: Publisher[] = [];
    for (let i = 0; i < o.agents; i++) {
      const { projectId, assetId } = await caudal.project(`site-${i}`);
      publishers.push({ projectId, assetId, agentToken: await caudal.agentToken(projectId) });
    }
    await caudal.addOperador(publishers.map((p) => p.projectId));
    return await withChild("./load.ts", async (loader: ChildProcess) => {
      await ask<MqttLoadReport>(
        loader,
        request(o, "caudal", caudal.mqttUrl, lanes(publishers, 101, startOf(60)), o.warmupS),
      );
      const meter = new CpuMeter({ side: caudal.program.pid, loader: loader.pid });
      const measured = lanes(publishers, 201, startOf(30));
      const report = await ask<MqttLoadReport>(
        loader,
        request(o, "caudal", caudal.mqttUrl, measured, o.durationS),
      );
      const cpu = meter.read();
      const verify = await ask<VerifyReport>(loader, {
        type: "verify",
        source: { kind: "caudal", base: caudal.base, token: await caudal.operadorToken() },
      });
      const value = report.acknowledged / (report.elapsedMs / 1000);
      return {
        value,
        cpu: cpu.processes.side ?? 0,
        loadCpu: cpu.processes.loader ?? 0,
        others: cpu.others,
        check: verify.check,
        detail:
          `${fmt(value)} messages/s committed (${fmt(report.acknowledged)} in ${fmt(report.elapsedMs / 1000, 1)} s); ` +
          `${loadLine(report)}; ${describeCpu("caudal-server", cpu, ["loader"])}; ` +
          `stored: ${describeCheck(verify.check)} (read back in ${fmt(verify.readS, 1)} s)`,
      };
    });
  } finally {
    await caudal.stop();
  }
}

/**
 * MQTT: `agents` publishers (each an agent of its own project, one asset × 10 variables), QoS 1,
 * `window` messages unanswered each, 10 points per message (one second of every variable). Caudal
 * counts what it committed; Mosquitto, what it delivered to one QoS 1 subscriber. The messages are
 * what an agent sends: JSON until Caudal's acks say it takes binary frames (the warm-up), frames
 * after; Mosquitto relays the same frames.
 */
export function mqttWorkload(o: MqttOptions): Workload {
  return {
    name: "mqtt",
    unit: "messages/s",
    higherIsBetter: true,
    peer: "Mosquitto",
    runPeer: () => mosquittoRound(o),
    runCaudal: () => caudalRound(o),
  };
}
