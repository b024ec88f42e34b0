import { createConnection, createServer } from "node:net";

/*
 * A port handed out here is closed again before its user binds it, so two things must not take it
 * in between:
 * - the kernel, which gives every outgoing connection (and every `listen(0)`) a port from its
 *   ephemeral range (32768-60999 on Linux): one of the run's many client connections took a port
 *   picked from that range before the PLC simulator could bind it (EADDRINUSE in CI). Ports come
 *   from below that range, which the kernel never hands out on its own;
 * - another test worker calling freePort at the same moment: each vitest worker (VITEST_POOL_ID)
 *   draws from its own block, and one process never hands out a port twice in a row.
 */
const FIRST = 20_000;
const BLOCK = 1_500; // eight blocks fit below 32,000
const BLOCKS = 8;

const pool = Number(process.env.VITEST_POOL_ID ?? 0);
const block = Number.isInteger(pool) && pool > 0 ? (pool - 1) % BLOCKS : BLOCKS - 1;
let next = Math.floor(Math.random() * BLOCK);

/** A TCP port that nothing listens on right now and that the kernel will not hand out on its own. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < BLOCK; tries++) {
    const port = FIRST + block * BLOCK + (next++ % BLOCK);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${FIRST + block * BLOCK}-${FIRST + (block + 1) * BLOCK - 1}`);
}

/** Whether `port` can be bound on every address right now (a listener on 127.0.0.1 makes it false). */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "0.0.0.0", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** Whether something accepts TCP connections on `host:port` right now. */
export function portAccepts(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
