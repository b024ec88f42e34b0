import { PEERS } from "./peers.ts";
import { type PeerProbe, underCi } from "./require-peer.ts";

/**
 * Whether every peer program really works here (an import or a run, not just an installed
 * package): under CI=true a missing one fails `npm test` before any test runs.
 */
export function checkPeers(
  probes: Readonly<Record<string, PeerProbe>>,
  ci: boolean,
): { ok: boolean; lines: string[] } {
  const lines: string[] = [];
  let missing = 0;
  for (const [name, probe] of Object.entries(probes)) {
    const why = probe();
    if (why === null) lines.push(`peers: ${name} ok`);
    else {
      missing += 1;
      lines.push(`peers: ${name} MISSING: ${why}`);
    }
  }
  if (missing === 0) return { ok: true, lines };
  lines.push(
    ci
      ? `peers: ${missing} missing; CI=true requires every peer`
      : `peers: ${missing} missing; the tests that need them skip and say why`,
  );
  return { ok: !ci, lines };
}

if (import.meta.main) {
  const { ok, lines } = checkPeers(PEERS, underCi());
  for (const line of lines) (ok ? process.stdout : process.stderr).write(`${line}\n`);
  process.exitCode = ok ? 0 : 1;
}
