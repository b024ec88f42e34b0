import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { batchOfInstants, type TelemetryInstant } from "../../../shared/telemetry/batch.ts";
import { type Field, field, iso, post } from "../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

const TIMESTAMPS = 250_000;
const VARIABLES = ["v0", "v1", "v2", "v3"];
const ROWS = TIMESTAMPS * VARIABLES.length; // 1,000,000
const SEC = 1_000;
const MB = 1024 * 1024;

/** V8's collector, so that the samples below measure live memory rather than garbage not yet collected. */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  const gc: unknown = runInNewContext("gc");
  if (typeof gc !== "function") throw new Error("gc is not available");
  return () => gc();
}

/*
 * One million raw readings exported as CSV through real HTTP. Held in memory, they would take
 * ~45 MB as CSV text and more again as row arrays; the export holds one page at a time, so the
 * live heap of the process (server and this client) grows by far less while it runs.
 */
describe("GET /api/telemetry/{asset_id}?format=csv with 1,000,000 readings", () => {
  let t: TestServer;
  let f: Field;
  let asset: string;
  let base: number;

  beforeAll(async () => {
    t = await TestServer.start();
    f = await field(t);
    asset = await t.asset(f.projectId);
    base = t.clock.now().getTime() - TIMESTAMPS * SEC - 3_600_000;
    // Seeded through the service's batch ingest (10,000 readings per call), not 1M requests.
    const service = t.server.telemetry;
    const perCall = 10_000 / VARIABLES.length;
    for (let start = 0; start < TIMESTAMPS; start += perCall) {
      const items: TelemetryInstant[] = [];
      for (let i = start; i < start + perCall; i++) {
        items.push({
          assetId: asset,
          projectId: f.projectId,
          ts: base + i * SEC,
          readings: VARIABLES.map((variable, k) => ({ variable, value: i * 4 + k, unit: "psi" })),
        });
      }
      const written = await service.write(batchOfInstants(items, "agent"));
      expect(written.accepted).toBe(10_000);
    }
  }, 120_000);
  afterAll(async () => t.stop());

  it("streams every row in order with bounded memory, and ingest keeps flowing meanwhile", async () => {
    const gc = collector();
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const rssBefore = process.memoryUsage().rss;
    let heapPeak = heapBefore;
    let rssPeak = rssBefore;

    const res = await fetch(`${t.baseUrl}/api/telemetry/${asset}?format=csv`, {
      headers: { authorization: `Bearer ${f.operador}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const reader = res.body?.getReader();
    if (!reader) throw new Error("no body");

    const decoder = new TextDecoder();
    let pending = "";
    let lines = 0;
    let header = "";
    let first = "";
    let last = "";
    let chunks = 0;
    const ingestMs: number[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      const parts = pending.split("\r\n");
      pending = parts.pop() ?? "";
      for (const line of parts) {
        if (lines === 0) header = line;
        else if (lines === 1) first = line;
        last = line;
        lines++;
      }
      chunks++;
      if (chunks % 50 === 0) {
        gc();
        const m = process.memoryUsage();
        heapPeak = Math.max(heapPeak, m.heapUsed);
        rssPeak = Math.max(rssPeak, m.rss);
      }
      // A live reading posted in the middle of the export is stored promptly.
      if (chunks === 200 || chunks === 400) {
        const started = performance.now();
        const posted = await post(t, f.operador, {
          asset_id: asset,
          readings: [{ variable: "live", value: chunks }],
        });
        expect(posted.status).toBe(201);
        ingestMs.push(performance.now() - started);
      }
    }
    expect(pending).toBe("");
    expect(header).toBe("timestamp,variable,value,unit");
    expect(ingestMs).toHaveLength(2);
    // The export covers the series the asset had when it started: the new "live" one is not in it.
    expect(lines - 1).toBe(ROWS);
    expect(first).toBe(`${iso(base)},v0,0,psi`);
    expect(last).toBe(`${iso(base + (TIMESTAMPS - 1) * SEC)},v3,${(TIMESTAMPS - 1) * 4 + 3},psi`);

    const heapGrowth = (heapPeak - heapBefore) / MB;
    const rssGrowth = (rssPeak - rssBefore) / MB;
    console.info(
      `csv 1M: ${chunks} chunks, heap +${heapGrowth.toFixed(1)} MB, rss +${rssGrowth.toFixed(1)} MB, ` +
        `ingest during export ${ingestMs.map((ms) => ms.toFixed(0)).join("/")} ms`,
    );
    expect(heapGrowth).toBeLessThan(16);
    // A body built whole before sending (string, then bytes) shows here: ~170 MB when tried.
    expect(rssGrowth).toBeLessThan(64);
    for (const ms of ingestMs) expect(ms).toBeLessThan(1_000);
  }, 120_000);
});
