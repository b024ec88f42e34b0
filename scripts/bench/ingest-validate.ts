import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { z } from "@hono/zod-openapi";
import { toColumns } from "../../server/http-workers/payload-columns.ts";
import { fastParseTelemetryBatch } from "../../server/routes/telemetry/fast-validate.ts";
import { telemetryBatchBody } from "../../server/routes/telemetry/ingest-body.ts";
import { parseIngestColumns } from "../../server/routes/telemetry/ingest-columns.ts";
import { telemetryBatchSchema } from "../../server/routes/telemetry/schema.ts";
import { caudalBatch } from "./peers/wire-formats.ts";

// `npm run bench -- ingest-validate [--readings 5000] [--rounds 9] [--ms 300]`
// CPU per reading of validating one POST /api/telemetry/batch body (the `peers ingest` workload's:
// 1 asset × 10 variables, one payload per second). Each case runs in a process of its own, so that
// no case's JIT feedback or GC tuning carries over to the next; CPU time, not wall time, so that
// other work on the machine counts less. "JSON.parse + …" cases parse the text again on every
// call, as a request does, so the garbage the output leaves is collected as on the server.

const say = (line: string) => process.stdout.write(`${line}\n`);
const VARIABLES = 10;
const ASSET_ID = "0b6f6a3e-58e2-4a6b-9a53-6c1f0e2d9b71";

type Parse = (body: unknown) => unknown;
const compiled = z.compile(telemetryBatchSchema);
const VALIDATORS: Record<string, Parse> = {
  "zod schema, safeParseAsync (before)": (b) => telemetryBatchSchema.safeParseAsync(b),
  "zod schema, safeParse": (b) => telemetryBatchSchema.safeParse(b),
  "z.compile(schema), safeParse": (b) => compiled.safeParse(b),
  "hand-written parser": (b) => fastParseTelemetryBatch(b),
  "route body schema, safeParseAsync (now)": (b) => telemetryBatchBody.safeParseAsync(b),
};
/**
 * From the body's bytes to the PayloadColumns an HTTP worker posts: what the worker did before
 * the byte parser (hono's c.req.json(): UTF-8 text, JSON.parse; the route's body schema;
 * toColumns), and the byte parser alone.
 */
const decoder = new TextDecoder();
const BYTE_CASES: Record<string, (bytes: Uint8Array) => unknown> = {
  "bytes: decode + JSON.parse + route body schema + toColumns (before)": async (bytes) => {
    const r = await telemetryBatchBody.safeParseAsync(JSON.parse(decoder.decode(bytes)));
    return r.success ? toColumns(r.data.items) : undefined;
  },
  "bytes: byte parser (now)": (bytes) => parseIngestColumns(bytes, "batch"),
};

/** Cases on a body parsed once, then with JSON.parse per call (the first: JSON.parse alone). */
const PARSED_CASES = Object.keys(VALIDATORS);
const TEXT_CASES = ["", "zod schema, safeParseAsync (before)", "route body schema, safeParseAsync (now)"];

let sink: unknown;

/** µs of CPU per reading, median over `rounds` windows of `ms` wall time each. */
async function measure(call: () => unknown, readings: number, rounds: number, ms: number) {
  for (let i = 0; i < 100; i++) sink = await call();
  const perReading: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let calls = 0;
    const cpu = process.cpuUsage();
    const until = performance.now() + ms;
    while (performance.now() < until) {
      sink = await call();
      calls++;
    }
    const used = process.cpuUsage(cpu);
    perReading.push((used.user + used.system) / (calls * readings));
  }
  perReading.sort((a, b) => a - b);
  return perReading[Math.floor(perReading.length / 2)] ?? Number.NaN;
}

function bodyText(readings: number): string {
  const values = Float32Array.from({ length: readings }, (_, i) => 20 + Math.sin(i / 7) * 5 + i * 1e-3);
  return caudalBatch(ASSET_ID, VARIABLES, { fromMs: Date.UTC(2025, 0, 31), values });
}

/** One case in this process: prints its µs per reading. */
async function runCase(name: string, fromText: boolean, readings: number, rounds: number, ms: number) {
  const text = bodyText(readings);
  const fromBytes = BYTE_CASES[name];
  if (fromBytes) {
    const bytes = Buffer.from(text);
    if ((await fromBytes(bytes)) === undefined) throw new Error(`${name} refused the body`);
    say(String(await measure(() => fromBytes(bytes), readings, rounds, ms)));
    if (sink === null) say("");
    return;
  }
  const validate = name === "" ? undefined : VALIDATORS[name];
  if (name !== "" && validate === undefined) throw new Error(`no case named "${name}"`);
  const accepted = (r: unknown) =>
    r !== undefined && !(typeof r === "object" && r !== null && "success" in r && !r.success);
  if (validate && !accepted(await validate(JSON.parse(text)))) throw new Error(`${name} refused the body`);
  const parsed: unknown = JSON.parse(text);
  const call = !fromText
    ? () => validate?.(parsed)
    : validate
      ? () => validate(JSON.parse(text))
      : () => JSON.parse(text);
  say(String(await measure(call, readings, rounds, ms)));
  if (sink === null) say("");
}

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      readings: { type: "string", default: "5000" },
      rounds: { type: "string", default: "9" },
      ms: { type: "string", default: "300" },
      case: { type: "string" },
      "from-text": { type: "boolean", default: false },
    },
  });
  const readings = Number(values.readings);
  const rounds = Number(values.rounds);
  const ms = Number(values.ms);
  if (values.case !== undefined) {
    await runCase(values.case, values["from-text"], readings, rounds, ms);
    return;
  }
  const runner = fileURLToPath(new URL("./run.ts", import.meta.url));
  const child = (name: string, fromText: boolean) => {
    const flags = [`--case=${name}`, ...(fromText ? ["--from-text"] : []), ...args];
    const out = execFileSync(process.execPath, [runner, "ingest-validate", ...flags], { encoding: "utf8" });
    return Number(out.trim());
  };
  const line = (name: string, us: number) =>
    say(`  ${name.padEnd(52)} ${us.toFixed(3)} µs/reading, ${(us * readings).toFixed(1)} µs/request`);

  say(
    `validating a ${readings}-reading batch (${readings / VARIABLES} payloads); CPU, median of ${rounds} rounds`,
  );
  say("already parsed:");
  for (const name of PARSED_CASES) line(name, child(name, false));
  say("JSON.parse of the body text on every call:");
  const parseOnly = child("", true);
  line("JSON.parse alone", parseOnly);
  for (const name of TEXT_CASES.slice(1)) {
    const us = child(name, true);
    line(`JSON.parse + ${name}`, us);
    line(`  so the validation`, us - parseOnly);
  }
  say("from the body's bytes to the PayloadColumns a worker posts:");
  for (const name of Object.keys(BYTE_CASES)) line(name.slice("bytes: ".length), child(name, false));
}
