import { describe, expect, it } from "vitest";
import { checkPeers } from "./check-peers.ts";

const probes = { present: () => null, absent: () => "cannot import x (ModuleNotFoundError)" };

describe("checkPeers (run by scripts/test.sh after scripts/debian-packages.sh)", () => {
  it("names each peer, and why a missing one cannot be used", () => {
    const { lines } = checkPeers(probes, false);
    expect(lines).toEqual([
      "peers: present ok",
      "peers: absent MISSING: cannot import x (ModuleNotFoundError)",
      "peers: 1 missing; the tests that need them skip and say why",
    ]);
  });

  it("fails under CI=true when a peer is missing, and passes when all are present", () => {
    expect(checkPeers(probes, true).ok).toBe(false);
    expect(checkPeers(probes, true).lines.at(-1)).toBe("peers: 1 missing; CI=true requires every peer");
    expect(checkPeers(probes, false).ok).toBe(true);
    expect(checkPeers({ present: () => null }, true)).toEqual({ ok: true, lines: ["peers: present ok"] });
  });
});
