import { ModbusTcpServer } from "../../sim/modbus-tcp-server.ts";
import { answer } from "../ipc.ts";

/*
 * The PLC side of `npm run bench -- agent`, in its own process so it does not share the agent's
 * core: one fast Modbus TCP server (scripts/sim/modbus-tcp-server.ts) per device, each on its own
 * port, holding `tags` float32 values (ABCD) from register 0. Every `tickMs` each value moves, so
 * every poll reads new values and report-by-exception stores them all.
 */

const servers: ModbusTcpServer[] = [];
let ticker: NodeJS.Timeout | undefined;
let tick = 0;

/** float32 near 1000 whose low word is `tick`: a new value on every tick. */
function fill(server: ModbusTcpServer, tags: number, device: number): void {
  const high = 0x4479 + (device % 7); // 996.0 … 1020.0
  for (let t = 0; t < tags; t++) {
    server.holding[t * 2] = high;
    server.holding[t * 2 + 1] = (tick + t) & 0xffff;
  }
}

answer({
  async start(request) {
    const devices = Number(request.devices);
    const tags = Number(request.tags);
    const tickMs = Number(request.tickMs);
    for (let d = 0; d < devices; d++) {
      const server = new ModbusTcpServer();
      await server.listen(0);
      fill(server, tags, d);
      servers.push(server);
    }
    ticker = setInterval(() => {
      tick += 1;
      servers.forEach((s, d) => {
        fill(s, tags, d);
      });
    }, tickMs);
    return { ports: servers.map((s) => s.port) };
  },
  mark() {
    const cpu = process.cpuUsage();
    return {
      cpuMicros: cpu.user + cpu.system,
      requests: servers.reduce((n, s) => n + s.requests, 0),
      maxInFlight: Math.max(0, ...servers.map((s) => s.maxInFlight)),
    };
  },
  async stop() {
    if (ticker) clearInterval(ticker);
    await Promise.all(servers.map((s) => s.close()));
    return {};
  },
});
