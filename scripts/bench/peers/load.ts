import { answer } from "../ipc.ts";
import { asRequest } from "../sync/ipc-request.ts";
import { type HttpLoadRequest, httpLoad } from "./http-load.ts";
import { type MqttLoadRequest, mqttLoad } from "./mqtt-load.ts";
import { type ReadSource, readBack } from "./read-back.ts";
import { type CheckResult, SeriesLog, sumChecks } from "./series-log.ts";

/*
 * The load generator of `npm run bench -- peers`, forked into its own process: the same code drives
 * both sides of every workload. It keeps what it sent (the SeriesLogs of the last load) until the
 * parent asks it to read everything back and check it.
 */

export type VerifyRequest = { type: "verify"; source: ReadSource };
export type VerifyReport = { check: CheckResult; readS: number };

let logs: SeriesLog[] = [];

answer({
  http: async (message) => {
    const request = asRequest<HttpLoadRequest>(message);
    logs = [new SeriesLog(request.spec)];
    const [log] = logs;
    if (!log) throw new Error("no log");
    return httpLoad(request, log);
  },
  mqtt: async (message) => {
    const request = asRequest<MqttLoadRequest>(message);
    logs = request.lanes.map((lane) => new SeriesLog(lane.spec));
    return mqttLoad(request, logs);
  },
  verify: async (message): Promise<VerifyReport> => {
    const { source } = asRequest<VerifyRequest>(message);
    const started = performance.now();
    const checks: CheckResult[] = [];
    for (const log of logs) checks.push(await readBack(source, log));
    return { check: sumChecks(checks), readS: (performance.now() - started) / 1000 };
  },
});
