import { encodeRegisters } from "../../../agent/drivers/modbus/decode.ts";
import { ModbusTcpServer } from "../../sim/modbus-tcp-server.ts";
import { answer } from "../ipc.ts";
import { asRequest } from "./ipc-request.ts";

/*
 * The field and the observer of `npm run bench -- sync` phase "drain", in their own process:
 * - the PLC: the fast Modbus TCP simulator (scripts/sim/modbus-tcp-server.ts), whose float32 tags
 *   (holding registers 0, 2, 4, …) move every 100 ms, so every 1 s poll reads a new value and
 *   report-by-exception keeps it;
 * - the latency probe: GET /api/telemetry/{asset_id}?limit=1 every `intervalMs` per asset, over
 *   real HTTP. A timestamp seen for the first time was committed and readable at most one
 *   probe interval earlier; its latency is (first seen − poll timestamp), the poll timestamp being
 *   the agent's clock right after the Modbus read (same machine, same clock).
 */

export type PlcReport = { type: "plc:ok"; port: number };
export type SampleStart = {
  type: "sample";
  base: string;
  token: string;
  assets: string[];
  intervalMs: number;
  /** Only timestamps from here on are live polls (the backlog ends before it). */
  liveFrom: number;
};
/** (epoch ms first seen, latency ms) per new timestamp. */
export type SampleReport = {
  type: "stop:ok";
  samples: [number, number][];
  requests: number;
  failures: number;
};

let plc: ModbusTcpServer | undefined;
let stepper: NodeJS.Timeout | undefined;
let sampling = false;
let loops: Promise<void>[] = [];
const samples: [number, number][] = [];
let requests = 0;
let failures = 0;

async function startPlc(tags: number): Promise<{ port: number }> {
  const server = new ModbusTcpServer();
  await server.listen(0);
  plc = server;
  const begin = Date.now();
  stepper = setInterval(() => {
    const t = (Date.now() - begin) / 1000;
    for (let i = 0; i < tags; i++) {
      const value = 1000 + i + 50 * Math.sin(t / 60 + i) + (Math.random() - 0.5);
      server.holding.set(encodeRegisters(value, "float32", "ABCD"), i * 2);
    }
  }, 100);
  return { port: server.port };
}

async function probe(s: SampleStart, assetId: string): Promise<void> {
  const { base, token, intervalMs } = s;
  let newest = s.liveFrom;
  while (sampling) {
    const started = Date.now();
    try {
      const res = await fetch(`${base}/api/telemetry/${assetId}?limit=1`, {
        headers: { authorization: `Bearer ${token}` },
      });
      requests += 1;
      if (res.status !== 200) {
        failures += 1;
        await res.arrayBuffer();
      } else {
        const body = (await res.json()) as { timestamp: string }[];
        const ts = body[0] ? Date.parse(body[0].timestamp) : 0;
        const seen = Date.now();
        if (ts > newest) {
          samples.push([seen, seen - ts]);
          newest = ts;
        }
      }
    } catch {
      failures += 1;
    }
    const wait = intervalMs - (Date.now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

answer({
  plc: (r) => startPlc(Number(r.tags)),
  sample: (r) => {
    const s = asRequest<SampleStart>(r);
    sampling = true;
    samples.length = 0;
    requests = 0;
    failures = 0;
    loops = s.assets.map((a) => probe(s, a));
    return {};
  },
  stop: async () => {
    sampling = false;
    await Promise.all(loops);
    return { samples: [...samples], requests, failures };
  },
  close: async () => {
    if (stepper) clearInterval(stepper);
    await plc?.close();
    return {};
  },
});
