import { RESPONSES, STATIC_RESPONSES } from "../../agent/drivers/dnp3/test-vectors.ts";
import { ScriptedOutstation } from "./dnp3-outstation.ts";

/**
 * Runs the scripted DNP3 outstation for a demo: `node scripts/sim/dnp3-outstation-main.ts [port]`
 * (default 20000, on 127.0.0.1), outstation address 1024, master address 1. Class 0 answers
 * with the recorded g30v5 response (g30:0 = 95.6); every 10 s a recorded class 1 response
 * (g32:23, g2:16) is queued, and every 60 s the device "restarts".
 */
const port = Number(process.argv[2] ?? 20000);
const sim = new ScriptedOutstation({
  address: 1024,
  masterAddress: 1,
  integrity: [STATIC_RESPONSES.g30v5.apdu],
});
await sim.listen(port);
console.log(`DNP3 scripted outstation 1024 on 127.0.0.1:${sim.port} (master 1)`);
const events = setInterval(() => sim.events.push([RESPONSES.class1Soe]), 10_000);
const restarts = setInterval(() => sim.restart(), 60_000);
process.once("SIGTERM", () => {
  clearInterval(events);
  clearInterval(restarts);
  void sim.close();
});
process.once("SIGINT", () => process.emit("SIGTERM"));
