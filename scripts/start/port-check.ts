import { createServer } from "node:net";

/** A port one of the programs will listen on, and the variable that sets it. */
export type PortNeed = { variable: string; host: string; port: number };

/**
 * Whether `host:port` can be bound right now. Linux refuses a bind that overlaps any listening
 * socket on the port (a wildcard bind against a loopback listener, and the reverse), so this
 * catches whatever holds the port on the address the program would use.
 */
function bindable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The first needed port that is taken, in the order given. */
export async function firstTakenPort(needs: PortNeed[]): Promise<PortNeed | undefined> {
  for (const need of needs) {
    if (need.port !== 0 && !(await bindable(need.host, need.port))) return need;
  }
  return undefined;
}

/** True when a Caudal server answers at `base` (its /health carries `X-Powered-By: Caudal/…`). */
export async function caudalAnswers(base: string): Promise<boolean> {
  try {
    const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return (res.headers.get("x-powered-by") ?? "").startsWith("Caudal/");
  } catch {
    return false;
  }
}

/**
 * The one line `npm start` prints when it cannot take a port. `needs` are every port this start
 * would take: a second Caudal beside a running one needs other values for all of them (PORT and
 * MQTT_PORT, and the demo's own), and a data directory of its own.
 */
export function portTakenLine(
  taken: PortNeed,
  caudal: boolean,
  publicBase: string,
  needs: PortNeed[],
): string {
  const which = `port ${taken.port} (${taken.variable})`;
  const others = needs.map((n) => `${n.variable}=<port>`).join(" ");
  return caudal
    ? `npm start: Caudal is already running at ${publicBase} (${which} is in use): nothing was started or changed. Stop it first (Ctrl-C in its terminal), or start a second one on other ports with its own data: ${others} DATA_DIR=<dir> npm start`
    : `npm start: ${which} is in use by another program: nothing was started or changed. Stop that program, or choose another port: ${taken.variable}=<port> npm start`;
}
