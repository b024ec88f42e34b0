import { WebSocket } from "ws";
import { answer } from "../ipc.ts";

/*
 * The client side of `npm run bench -- ws`, in its own process so that client and server each get a
 * core: opens N stream clients and counts what they receive. Only a sample of messages is parsed
 * (for latency); the rest are told apart by one byte.
 */

const LATENCY_SAMPLE = 101;
// `{"type":"` is 9 bytes: the next byte tells telemetry, alarm and dropped apart.
const TYPE_BYTE = 9;
const DROPPED = "d".charCodeAt(0);

let received = 0;
let droppedEvents = 0;
let closes = 0;
let latencies: number[] = [];

function onMessage(data: Buffer): void {
  received++;
  if (data[TYPE_BYTE] === DROPPED) {
    droppedEvents += (JSON.parse(data.toString()) as { count: number }).count;
    return;
  }
  if (received % LATENCY_SAMPLE === 0) {
    const { timestamp } = JSON.parse(data.toString()) as { timestamp: string };
    latencies.push(Date.now() - Date.parse(timestamp));
  }
}

function connect(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.on("message", (data) => onMessage(data as Buffer));
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
    ws.once("close", () => closes++);
  });
}

const sockets: WebSocket[] = [];

answer({
  async connect(request) {
    const url = String(request.url);
    const clients = Number(request.clients);
    const batch = 50;
    for (let i = 0; i < clients; i += batch) {
      const opened = await Promise.all(
        Array.from({ length: Math.min(batch, clients - i) }, () => connect(url)),
      );
      sockets.push(...opened);
    }
    return { clients: sockets.length };
  },
  mark() {
    const cpu = process.cpuUsage();
    const sample = latencies;
    latencies = [];
    return { received, droppedEvents, closes, latencies: sample, cpuMicros: cpu.user + cpu.system };
  },
});
