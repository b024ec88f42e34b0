import { variableName } from "./sensor-walk.ts";
import { type CheckResult, type SeriesLog, StoredCheck } from "./series-log.ts";

export type ReadSource =
  | { kind: "caudal"; base: string; token: string }
  | { kind: "influxdb"; base: string; db: string };

/** Each line of a streamed body, as it arrives (no whole body in memory: exports run to 10M rows). */
async function eachLine(res: Response, onLine: (line: string) => void): Promise<void> {
  if (!res.body) throw new Error("empty body");
  const decoder = new TextDecoder();
  // Only each new chunk is searched: InfluxDB's lines (one per 10,000-row chunk) run to megabytes.
  let pending: string[] = [];
  for await (const chunk of res.body) {
    const text = decoder.decode(chunk, { stream: true });
    let from = 0;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", from)) {
      pending.push(text.slice(from, at));
      onLine(pending.join(""));
      pending = [];
      from = at + 1;
    }
    pending.push(text.slice(from));
  }
  pending.push(decoder.decode());
  const last = pending.join("");
  if (last.length > 0) onLine(last);
}

/**
 * Caudal: the asset's raw readings over the log's range through the public CSV export
 * (GET /api/telemetry/{asset_id}?format=csv: every reading in [from, to], ascending).
 */
async function readCaudal(source: { base: string; token: string }, log: SeriesLog, check: StoredCheck) {
  const [fromMs, toMs] = log.rangeMs;
  const query = new URLSearchParams({
    format: "csv",
    from: new Date(fromMs).toISOString(),
    to: new Date(toMs - 1).toISOString(),
  });
  const res = await fetch(`${source.base}/api/telemetry/${log.spec.assetId}?${query}`, {
    headers: { authorization: `Bearer ${source.token}` },
  });
  if (res.status !== 200) throw new Error(`caudal CSV export: ${res.status} ${await res.text()}`);
  const index = new Map(Array.from({ length: log.spec.variables }, (_, v) => [variableName(v), v]));
  let header = true;
  let stamp = "";
  let ts = 0;
  await eachLine(res, (line) => {
    if (header) {
      header = false;
      return;
    }
    if (line.length === 0 || line === "\r") return;
    // timestamp,variable,value,unit\r
    const [t, variable, value] = line.split(",", 3);
    if (t !== stamp) {
      stamp = t ?? "";
      ts = Date.parse(stamp);
    }
    check.row(ts, index.get(variable ?? "") ?? -1, Number(value));
  });
}

/** InfluxDB: the same range through /query, streamed in chunks of 10,000 rows. */
async function readInflux(source: { base: string; db: string }, log: SeriesLog, check: StoredCheck) {
  const [fromMs, toMs] = log.rangeMs;
  const q = `SELECT * FROM sensor WHERE asset = '${log.spec.assetId}' AND time >= ${fromMs}ms AND time < ${toMs}ms`;
  const query = new URLSearchParams({ db: source.db, epoch: "ms", chunked: "true", chunk_size: "10000", q });
  const res = await fetch(`${source.base}/query?${query}`);
  if (res.status !== 200) throw new Error(`influxdb query: ${res.status} ${await res.text()}`);
  const index = new Map(Array.from({ length: log.spec.variables }, (_, v) => [variableName(v), v]));
  await eachLine(res, (line) => {
    if (line.length === 0) return;
    type Chunk = {
      results: { error?: string; series?: { columns: string[]; values: (number | string | null)[][] }[] }[];
    };
    for (const result of (JSON.parse(line) as Chunk).results) {
      if (result.error) throw new Error(`influxdb query: ${result.error}`);
      for (const series of result.series ?? []) {
        const columns = series.columns.map((c) => index.get(c));
        for (const row of series.values) {
          const ts = Number(row[0]);
          for (let c = 1; c < row.length; c++) {
            const variable = columns[c];
            const value = row[c];
            if (variable === undefined || typeof value !== "number") continue;
            check.row(ts, variable, value);
          }
        }
      }
    }
  });
}

/** Reads back everything the log's range holds on one side and checks it against what was sent. */
export async function readBack(source: ReadSource, log: SeriesLog): Promise<CheckResult> {
  const check = new StoredCheck(log);
  if (source.kind === "caudal") await readCaudal(source, log, check);
  else await readInflux(source, log, check);
  return check.result();
}
