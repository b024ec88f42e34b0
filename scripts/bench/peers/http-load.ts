import { Agent, request } from "node:http";
import { percentile } from "../sync/measure.ts";
import type { SeriesLog, SeriesSpec } from "./series-log.ts";
import { type Block, caudalBatch, influxLines } from "./wire-formats.ts";

export type HttpTarget =
  | { kind: "caudal"; base: string; token: string }
  | { kind: "influxdb"; base: string; db: string };

export type HttpLoadRequest = {
  type: "http";
  target: HttpTarget;
  spec: SeriesSpec;
  connections: number;
  /** Issue requests for this long (s), or until `blocks` requests were issued. */
  until: { durationS: number } | { blocks: number };
};

export type HttpLoadReport = {
  requests: number;
  failed: number;
  firstError: string | null;
  acknowledgedPoints: number;
  elapsedMs: number;
  p50Ms: number;
  p99Ms: number;
};

type Sent = {
  path: string;
  headers: Record<string, string>;
  /** The body's bytes: both sides' text is ASCII, so latin1 is its UTF-8, copied once. */
  body: Buffer;
  ok: (status: number, text: string) => boolean;
};

function encode(target: HttpTarget, spec: SeriesSpec, block: Block): Sent {
  const points = block.values.length;
  if (target.kind === "caudal") {
    return {
      path: "/api/telemetry/batch",
      headers: { "content-type": "application/json", authorization: `Bearer ${target.token}` },
      body: Buffer.from(caudalBatch(spec.assetId, spec.variables, block), "latin1"),
      // 201 {accepted, duplicates}: every point new, so every one accepted.
      ok: (status, text) => status === 201 && (JSON.parse(text) as { accepted: number }).accepted === points,
    };
  }
  return {
    path: `/write?db=${target.db}&precision=s`,
    headers: { "content-type": "text/plain; charset=utf-8" },
    body: Buffer.from(influxLines(spec.assetId, spec.variables, block), "latin1"),
    ok: (status) => status === 204,
  };
}

function post(agent: Agent, base: string, sent: Sent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(sent.path, base);
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: { ...sent.headers, "content-length": String(sent.body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(sent.body);
  });
}

/**
 * Closed-loop HTTP ingest: `connections` keep-alive connections, each sending its next request as
 * soon as the previous one is answered. Each request is the log's next block (new timestamps, so
 * nothing is a duplicate); a block counts as acknowledged when the side answered success for it.
 */
export async function httpLoad(r: HttpLoadRequest, log: SeriesLog): Promise<HttpLoadReport> {
  const latencies: number[] = [];
  let requests = 0;
  let failed = 0;
  let firstError: string | null = null;
  let acknowledgedPoints = 0;
  const started = performance.now();
  let lastDone = started;
  const more = () =>
    "durationS" in r.until
      ? performance.now() < started + r.until.durationS * 1000
      : log.blocks < r.until.blocks;
  const connection = async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      while (more()) {
        const block = log.nextBlock();
        const sent = encode(r.target, r.spec, block);
        requests++;
        const t0 = performance.now();
        try {
          const res = await post(agent, r.target.base, sent);
          if (sent.ok(res.status, res.text)) {
            log.ack(block.index);
            acknowledgedPoints += block.values.length;
          } else {
            failed++;
            firstError ??= `${res.status} ${res.text.slice(0, 300)}`;
          }
        } catch (err) {
          failed++;
          firstError ??= err instanceof Error ? err.message : String(err);
        }
        lastDone = performance.now();
        latencies.push(lastDone - t0);
      }
    } finally {
      agent.destroy();
    }
  };
  await Promise.all(Array.from({ length: r.connections }, connection));
  return {
    requests,
    failed,
    firstError,
    acknowledgedPoints,
    elapsedMs: lastDone - started,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}
