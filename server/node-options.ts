/**
 * Node's options for caudal-server wherever it is started: the systemd unit and the Dockerfile
 * (as NODE_OPTIONS), `npm start`, and the benchmarks that start it as its own process.
 *
 * 16 MB semi-spaces: V8 sizes the young generation by the machine's memory, and on a 24 GiB
 * machine each semi-space grew to 32 MB. With 1,000 WebSocket clients at 150,000 messages/s the
 * server's RSS then peaked at 302–305 MB (target < 300); with 16 MB, at 224 MB, with the same CPU
 * and latency (`npm run bench -- ws`, same 2-core VM).
 */
export const SERVER_NODE_OPTIONS = "--max-semi-space-size=16";

/** `env` with SERVER_NODE_OPTIONS first in its NODE_OPTIONS (options given there come after, and win). */
export function withServerNodeOptions(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const given = env.NODE_OPTIONS?.trim();
  return { ...env, NODE_OPTIONS: given ? `${SERVER_NODE_OPTIONS} ${given}` : SERVER_NODE_OPTIONS };
}
