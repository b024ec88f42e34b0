/**
 * Node's options for caudal-server wherever it is started: the systemd unit and the Dockerfile
 * (as NODE_OPTIONS), `npm start`, and the benchmarks that start it as its own process.
 *
 * 32 MB semi-spaces, whatever the machine's memory (V8 sizes the young generation by it). Measured
 * on a 2-core, 24 GiB VM, interleaved runs of `peers mqtt`'s Caudal side (3 each): 16 MB cost agent
 * ingest 8–9% (20,159 messages/s against 21,752 and 22,061 at 32 MB: scavenges twice as often,
 * each copying the batches still in flight). `npm run bench -- ws` (1,000 clients, 150,000
 * messages/s): RSS peaks at 251–259 MB with 32 MB (target < 300), 218–235 MB with 16 MB, same CPU
 * and latency. (An earlier session measured 302–305 MB at 32 MB and chose 16 MB; three runs now
 * do not reproduce it.) V8 rounds the size up to a power of two: 24 acts as 32.
 */
export const SERVER_NODE_OPTIONS = "--max-semi-space-size=32";

/** `env` with SERVER_NODE_OPTIONS first in its NODE_OPTIONS (options given there come after, and win). */
export function withServerNodeOptions(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const given = env.NODE_OPTIONS?.trim();
  return { ...env, NODE_OPTIONS: given ? `${SERVER_NODE_OPTIONS} ${given}` : SERVER_NODE_OPTIONS };
}
