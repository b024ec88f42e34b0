import { createRequire } from "node:module";

/*
 * The load side of `npm run bench -- telemetry`, forked into its own process so that the load
 * generator (autocannon) and the server each get a core. It receives one LoadRequest over IPC,
 * runs it and answers with a LoadReport.
 */

export type LoadRequest =
  | {
      type: "ingest";
      /** post: POST /api/telemetry, one payload per request; batch: POST /api/telemetry/batch. */
      mode: "post" | "batch";
      base: string;
      token: string;
      assets: string[];
      variables: number;
      /** Payloads (timestamps) per batch request; 1 for post. */
      payloadsPerRequest: number;
      /** First timestamp (epoch ms) and the step between a series' successive timestamps. */
      startTs: number;
      stepMs: number;
      connections: number;
      durationS: number;
    }
  | { type: "history"; urls: string[]; token: string; rounds: number; warmup: number };

export type LoadReport = {
  type: "report";
  requestsPerSecond: number;
  /** Completed 2xx requests. */
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Sum of `accepted` over the 2xx answers (batch mode parses every answer; post mode assumes all). */
  acknowledged: number;
  latency: { p50: number; p90: number; p99: number; max: number; mean: number };
  /** CPU the load generator itself used, in % of one core. */
  loadCpu: number;
  firstError?: string;
};

export type HistoryReport = {
  type: "history";
  byUrl: { url: string; ms: number[]; bytes: number; items: number }[];
};

type AutocannonResult = {
  requests: { average: number };
  latency: { p50: number; p90: number; p99: number; max: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  "2xx": number;
};

type RawRequest = { method?: string; path?: string; body?: string; headers?: Record<string, string> };

type AutocannonOptions = {
  url: string;
  connections: number;
  duration: number;
  requests: {
    method: string;
    path: string;
    setupRequest: (req: RawRequest) => RawRequest;
    onResponse?: (status: number, body: string) => void;
  }[];
  headers: Record<string, string>;
};

/** autocannon ships no types; its programmatic API takes options and calls back with the result. */
function autocannon(options: AutocannonOptions): Promise<AutocannonResult> {
  const run = createRequire(import.meta.url)("autocannon") as (
    o: AutocannonOptions,
    cb: (err: Error | null, result: AutocannonResult) => void,
  ) => unknown;
  return new Promise((resolve, reject) => {
    run(options, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

const send = (message: LoadReport | HistoryReport | { type: "error"; message: string }) => {
  process.send?.(message);
};

/** Pre-rendered readings: the body changes per request only in asset and timestamp. */
function readingVariants(variables: number): string[] {
  return Array.from({ length: 16 }, (_, v) =>
    JSON.stringify(
      Array.from({ length: variables }, (_, i) => ({
        variable: `tag_${String(i).padStart(2, "0")}`,
        value: Math.round((100 + i * 10 + Math.sin(v + i) * 5) * 1000) / 1000,
        unit: "psi",
      })),
    ),
  );
}

async function ingest(req: Extract<LoadRequest, { type: "ingest" }>): Promise<LoadReport> {
  const variants = readingVariants(req.variables);
  let seq = 0;
  let acknowledged = 0;
  let firstError: string | undefined;
  // Every request takes the next (asset, block) pair, so no (series, timestamp) is ever sent twice.
  const payload = (asset: string, ts: number, v: number) =>
    `{"asset_id":"${asset}","timestamp":"${new Date(ts).toISOString()}","readings":${variants[v % variants.length]}}`;
  const body = (): string => {
    const n = seq++;
    const asset = req.assets[n % req.assets.length] ?? "";
    const block = Math.floor(n / req.assets.length);
    if (req.mode === "post") return payload(asset, req.startTs + block * req.stepMs, n);
    const parts: string[] = [];
    for (let i = 0; i < req.payloadsPerRequest; i++) {
      parts.push(payload(asset, req.startTs + (block * req.payloadsPerRequest + i) * req.stepMs, n + i));
    }
    return `{"items":[${parts.join(",")}]}`;
  };
  const path = req.mode === "post" ? "/api/telemetry" : "/api/telemetry/batch";
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await autocannon({
    url: req.base,
    connections: req.connections,
    duration: req.durationS,
    headers: { "content-type": "application/json", authorization: `Bearer ${req.token}` },
    requests: [
      {
        method: "POST",
        path,
        setupRequest: (r) => ({ ...r, body: body() }),
        onResponse: (status, text) => {
          if (status === 201) {
            if (req.mode === "batch") acknowledged += (JSON.parse(text) as { accepted: number }).accepted;
          } else firstError ??= `${status} ${text.slice(0, 300)}`;
        },
      },
    ],
  });
  if (req.mode === "post") acknowledged = result["2xx"] * req.variables;
  const cpu = process.cpuUsage(cpuBefore);
  const loadCpu = ((cpu.user + cpu.system) / 1000 / (performance.now() - started)) * 100;
  return {
    type: "report",
    requestsPerSecond: result.requests.average,
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    acknowledged,
    latency: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.average,
    },
    loadCpu,
    ...(firstError ? { firstError } : {}),
  };
}

/** Sequential GETs (one at a time, as a dashboard would): wall time until the whole body arrived. */
async function history(req: Extract<LoadRequest, { type: "history" }>): Promise<HistoryReport> {
  const byUrl: HistoryReport["byUrl"] = [];
  for (const url of req.urls) {
    const ms: number[] = [];
    let bytes = 0;
    let items = 0;
    for (let i = -req.warmup; i < req.rounds; i++) {
      const started = performance.now();
      const res = await fetch(url, { headers: { authorization: `Bearer ${req.token}` } });
      const buf = await res.arrayBuffer();
      if (i >= 0) ms.push(performance.now() - started);
      if (res.status !== 200)
        throw new Error(`GET ${url}: ${res.status} ${Buffer.from(buf).toString().slice(0, 200)}`);
      bytes = buf.byteLength;
      if (i === 0) items = (JSON.parse(Buffer.from(buf).toString()) as unknown[]).length;
    }
    byUrl.push({ url, ms, bytes, items });
  }
  return { type: "history", byUrl };
}

process.on("message", (message: LoadRequest) => {
  const work = message.type === "ingest" ? ingest(message) : history(message);
  work.then(send, (err: unknown) =>
    send({ type: "error", message: err instanceof Error ? err.message : String(err) }),
  );
});
