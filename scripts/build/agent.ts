import { parseArgs } from "node:util";
import { AGENT_TARGETS, type AgentTarget } from "../../shared/distribution/agent-manifest.ts";
import { buildAgentBinaries, DEFAULT_AGENT_DIST } from "./agent-binaries.ts";

// `npm run build:agent [-- --target linux-x86_64 --force --sizes --out DIR]`
const USAGE = `usage: npm run build:agent -- [--target T]... [--out DIR] [--force] [--sizes] [--stop-with PID]
  --target     ${AGENT_TARGETS.join(", ")} (default: all)
  --out        output folder (default: dist/agent)
  --force      build even when nothing changed since the last build
  --sizes      also report each file's size compressed with xz
  --stop-with  stop, with every tool it runs, once process PID (its parent) is gone
`;

let values: ReturnType<typeof parse>["values"];
function parse() {
  return parseArgs({
    options: {
      target: { type: "string", multiple: true },
      out: { type: "string" },
      force: { type: "boolean" },
      sizes: { type: "boolean" },
      "stop-with": { type: "string" },
      help: { type: "boolean" },
    },
  });
}
try {
  values = parse().values;
} catch (err) {
  process.stderr.write(`build:agent: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const unknown = (values.target ?? []).filter((t) => !(AGENT_TARGETS as readonly string[]).includes(t));
if (unknown.length > 0) {
  process.stderr.write(`build:agent: unknown target ${unknown.join(", ")}\n${USAGE}`);
  process.exit(2);
}

const parent = values["stop-with"];
if (parent !== undefined) {
  if (!/^[1-9][0-9]*$/.test(parent)) {
    process.stderr.write(
      `build:agent: --stop-with takes a process id, not ${JSON.stringify(parent)}\n${USAGE}`,
    );
    process.exit(2);
  }
  stopWithParent(Number(parent));
}

/**
 * The server runs this build in a process group of its own (so that stopping it stops npm, strip and
 * postject too), which a SIGKILL of the server does not reach: once the parent is gone (this process
 * re-parented), the build ends its whole group rather than run on as an orphan.
 */
function stopWithParent(pid: number): void {
  const check = setInterval(() => {
    if (process.ppid === pid) return;
    clearInterval(check);
    process.stderr.write(`build:agent: process ${pid} is gone; stopping\n`);
    try {
      process.kill(-process.pid, "SIGTERM");
    } catch {
      // Not a group leader (run by hand): this process alone.
    }
    process.exit(1);
  }, 1_000);
  check.unref();
}

try {
  const manifest = await buildAgentBinaries({
    outDir: values.out ?? DEFAULT_AGENT_DIST,
    targets: values.target as AgentTarget[] | undefined,
    force: values.force,
    sizes: values.sizes,
  });
  for (const a of manifest.artifacts) {
    const xz = a.xz_bytes ? `, ${(a.xz_bytes / 1e6).toFixed(1)} MB with xz` : "";
    process.stdout.write(`${a.file}  ${(a.bytes / 1e6).toFixed(1)} MB${xz}  sha256 ${a.sha256}\n`);
  }
  const w = manifest.winsw;
  if (w) process.stdout.write(`${w.file}  ${(w.bytes / 1e3).toFixed(0)} kB  sha256 ${w.sha256}\n`);
} catch (err) {
  process.stderr.write(`build:agent: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
