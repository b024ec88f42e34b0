import { WebSocket } from "ws";

/*
 * The client side of `npm run bench -- ws`, forked so that it runs on the other core: opens N
 * stream clients, counts what they receive and reports to the parent over IPC. Only a sample of
 * messages is parsed (for latency); the rest are counted by their first bytes.
 */

type Start = { type: "start"; url: string; clients: number };
type Report = { type: "report" };
type FromParent = Start | Report;

const send = (message: unknown) => process.send?.(message);

const LATENCY_SAMPLE = 101;
// `{"type":"` is 9 bytes: the next byte tells telemetry, alarm and dropped apart.
const TYPE_BYTE = 9;
const DROPPED = "d".charCodeAt(0);

let received = 0;
let droppedNotices = 0;
let droppedEvents = 0;
let closes = 0;
let latencies: number[] = [];

function onMessage(data: Buffer): void {
  received++;
  if (data[TYPE_BYTE] === DROPPED) {
    droppedNotices++;
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
    ws.binaryType = "nodebuffer";
    ws.on("message", (data) => onMessage(data as Buffer));
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
    ws.once("close", () => closes++);
  });
}

async function start({ url, clients }: Start): Promise<void> {
  const sockets: WebSocket[] = [];
  const batch = 50;
  for (let i = 0; i < clients; i += batch) {
    const opened = await Promise.all(
      Array.from({ length: Math.min(batch, clients - i) }, () => connect(url)),
    );
    sockets.push(...opened);
  }
  send({ type: "ready", clients: sockets.length });
}

process.on("message", (message: FromParent) => {
  if (message.type === "start") {
    start(message).catch((err: unknown) => {
      send({ type: "error", message: err instanceof Error ? err.message : String(err) });
    });
  } else if (message.type === "report") {
    const cpu = process.cpuUsage();
    send({
      type: "report",
      received,
      droppedNotices,
      droppedEvents,
      closes,
      latencies,
      cpuMicros: cpu.user + cpu.system,
    });
    latencies = [];
  }
});

process.on("disconnect", () => process.exit(0));
