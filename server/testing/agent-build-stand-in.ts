// A stand-in for scripts/build/agent.ts that the agent-build tests run in its place
// (CaudalServerOptions.agentBuildCommand): the server starts it exactly as it starts the real
// build, with the same arguments (`--out DIR --target T...`), environment and priority, and it
// answers the same way (progress lines, an executable then the manifest after each target), but
// each "executable" is a few random bytes made when the test says so, not minutes of CPU.
//
//   node agent-build-stand-in.ts --gate DIR [--fail-at N] --out DIR --target T... --stop-with PID
// Before target i (from 1) it waits for the file DIR/i; with --fail-at i it then fails instead.
// At start it writes DIR/report.json: its pid, its nice value, and whether it sees a server secret.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { getPriority } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { targetDoneLine, targetStartLine } from "../../shared/distribution/agent-build-status.ts";
import {
  AGENT_MANIFEST_FILE,
  type AgentBuildManifest,
  type AgentTarget,
  agentArtifactFile,
  WINSW_FILE,
} from "../../shared/distribution/agent-manifest.ts";

const { values } = parseArgs({
  options: {
    gate: { type: "string" },
    "fail-at": { type: "string" },
    out: { type: "string" },
    target: { type: "string", multiple: true },
    "stop-with": { type: "string" },
  },
});
const gate = values.gate ?? "";
const out = values.out ?? "";
const targets = (values.target ?? []) as AgentTarget[];
const say = (line: string) => process.stderr.write(`build:agent: ${line}\n`);
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

writeFileSync(
  join(gate, "report.json"),
  JSON.stringify({
    pid: process.pid,
    nice: getPriority(),
    sees_secret: process.env.TOTP_SECRET_ENCRYPTION_KEY !== undefined || process.env.JWT_SECRET !== undefined,
    targets,
    stop_with: values["stop-with"] ?? null,
  }),
);
mkdirSync(out, { recursive: true });
say("bundled the agent (stand-in)");
const manifest: AgentBuildManifest = {
  version: "1.0.0-stand-in",
  commit: "0123456789ab",
  built_at: new Date().toISOString(),
  node_version: "24.21.0",
  inputs_sha256: "0".repeat(64),
  artifacts: [],
};
for (const [i, target] of targets.entries()) {
  const file = agentArtifactFile(target);
  say(targetStartLine(i + 1, targets.length, file));
  while (!existsSync(join(gate, String(i + 1)))) await new Promise((r) => setTimeout(r, 50));
  if (values["fail-at"] === String(i + 1)) {
    say("postject: the executable has no SEA fuse (stand-in failure)");
    process.exit(1);
  }
  const bytes = randomBytes(4096);
  writeFileSync(join(out, file), bytes, { mode: 0o755 });
  manifest.artifacts.push({ target, file, bytes: bytes.length, sha256: sha256(bytes) });
  if (target === "windows-x64") {
    const winsw = randomBytes(1024);
    writeFileSync(join(out, WINSW_FILE), winsw);
    manifest.winsw = { file: WINSW_FILE, bytes: winsw.length, sha256: sha256(winsw) };
  }
  writeFileSync(join(out, AGENT_MANIFEST_FILE), JSON.stringify(manifest));
  say(targetDoneLine(i + 1, targets.length, file, "4 kB in 0.0 s (stand-in)"));
}
