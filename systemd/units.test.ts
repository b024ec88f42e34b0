import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { systemdToolsMissing } from "../scripts/testing/peers.ts";
import { requirePeer } from "../scripts/testing/require-peer.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const AGENT = "caudal-agent.service";
const SERVER = "caudal-server.service";
const systemd = requirePeer("systemd", systemdToolsMissing);

/** The `key=value` lines of one section, in order (a key may repeat). */
function section(text: string, name: string): [string, string][] {
  const entries: [string, string][] = [];
  let current = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("[")) current = line;
    else if (current === `[${name}]`) {
      const eq = line.indexOf("=");
      entries.push([line.slice(0, eq), line.slice(eq + 1)]);
    }
  }
  return entries;
}

const unitText = (unit: string) => readFileSync(join(HERE, unit), "utf8");
const serviceValues = (text: string, key: string) =>
  section(text, "Service")
    .filter(([k]) => k === key)
    .map(([, v]) => v);

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/**
 * A throw-away root for `systemd-analyze --root`. verify refuses a unit whose ExecStart program
 * does not exist ("Command … is not executable"), and the agent's single executable and the
 * server's /usr/local/bin/node are not installed on a development machine (nor may a test create
 * /opt/caudal-agent on it). Under --root, systemd-analyze reads the units and resolves ExecStart
 * inside the root, so each ExecStart path gets a stub program there. It also loads each unit's
 * default dependencies (sysinit.target, basic.target, ...) from the root: the host's stock units
 * are copied in (about 900 KB).
 */
function stageRoot(units: Record<string, string>, stubs = true): string {
  const root = mkdtempSync(join(tmpdir(), "caudal-units-"));
  roots.push(root);
  cpSync("/usr/lib/systemd/system", join(root, "usr/lib/systemd/system"), { recursive: true });
  mkdirSync(join(root, "etc/systemd/system"), { recursive: true });
  for (const [name, text] of Object.entries(units)) {
    writeFileSync(join(root, "etc/systemd/system", name), text);
    if (!stubs) continue;
    for (const command of serviceValues(text, "ExecStart")) {
      const program = join(root, command.split(" ")[0] ?? "");
      mkdirSync(dirname(program), { recursive: true });
      writeFileSync(program, "#!/bin/sh\nexit 0\n");
      chmodSync(program, 0o755);
    }
  }
  return root;
}

function analyze(args: string[]) {
  const run = spawnSync("systemd-analyze", args, { encoding: "utf8", timeout: 30_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

systemd.describe("the unit files under systemd-analyze", () => {
  systemd.it("verify finds nothing to report in either unit", () => {
    const root = stageRoot({ [AGENT]: unitText(AGENT), [SERVER]: unitText(SERVER) });
    // verify exits 0 after warnings such as an unknown directive: the output must be empty too.
    expect(analyze(["verify", `--root=${root}`, AGENT, SERVER])).toEqual({ status: 0, output: "" });
  });

  systemd.it("control: verify does report a misspelt directive and a missing program", () => {
    const typo = unitText(AGENT).replace("NoNewPrivileges=yes", "NoNewPrivilege=yes");
    const misspelt = analyze(["verify", `--root=${stageRoot({ [AGENT]: typo })}`, AGENT]);
    expect(misspelt.output).toContain("Unknown key 'NoNewPrivilege'");
    const missing = analyze(["verify", `--root=${stageRoot({ [AGENT]: unitText(AGENT) }, false)}`, AGENT]);
    expect(missing.status).not.toBe(0);
    expect(missing.output).toContain("/opt/caudal-agent/caudal-agent is not executable");
  });

  for (const unit of [AGENT, SERVER]) {
    systemd.it(
      `${unit}: systemd's own exposure score stays at 4.0 or better (0 is locked down, 10 is open)`,
      () => {
        const root = stageRoot({ [unit]: unitText(unit) });
        const run = analyze(["security", "--offline=yes", `--root=${root}`, "--threshold=40", unit]);
        expect(run.output).toMatch(new RegExp(`Overall exposure level for ${unit}: \\d\\.\\d`));
        expect(run.status).toBe(0);
      },
    );
  }
});

describe("what the units promise", () => {
  for (const [unit, dataDir] of [
    [AGENT, "/var/lib/caudal-agent"],
    [SERVER, "/var/lib/caudal"],
  ] as const) {
    it(`${unit}: notify with a watchdog, always restarted, confined to its data directory`, () => {
      const text = unitText(unit);
      const one = (key: string) => serviceValues(text, key);
      expect(one("Type")).toEqual(["notify"]);
      // The programs ping through systemd-notify, a child process (shared/systemd-notify.ts).
      expect(one("NotifyAccess")).toEqual(["all"]);
      expect(Number(one("WatchdogSec")[0])).toBeGreaterThan(0);
      expect(one("Restart")).toEqual(["always"]);
      expect(one("NoNewPrivileges")).toEqual(["yes"]);
      expect(one("ProtectSystem")).toEqual(["strict"]);
      expect(one("ReadWritePaths")).toEqual([dataDir]);
      expect(one("StateDirectory")).toEqual([dataDir.replace("/var/lib/", "")]);
      expect(one("PrivateTmp")).toEqual(["yes"]);
      expect(one("CapabilityBoundingSet")).toEqual([""]);
      // V8's JIT needs writable executable memory; the agent dlopens addons from its data dir.
      expect(one("MemoryDenyWriteExecute")).toEqual([]);
      expect(one("NoExecPaths")).toEqual([]);
    });
  }

  it(`${AGENT}: the single executable with its configuration, and serial ports through dialout`, () => {
    const text = unitText(AGENT);
    expect(serviceValues(text, "ExecStart")).toEqual(["/opt/caudal-agent/caudal-agent"]);
    expect(serviceValues(text, "Environment")).toContain("AGENT_CONFIG=/etc/caudal-agent/agent.json");
    expect(serviceValues(text, "User")).toEqual(["caudal-agent"]);
    expect(text).toMatch(/^#SupplementaryGroups=dialout$/m);
  });

  it(`${AGENT}: its Environment= lines shrink the young generation of Node 24.21.0 to 1 MB semi-spaces`, () => {
    // The single executable is this same Node build; it reads NODE_OPTIONS as node does.
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? "" };
    for (const line of serviceValues(unitText(AGENT), "Environment")) {
      const eq = line.indexOf("=");
      env[line.slice(0, eq)] = line.slice(eq + 1);
    }
    expect(env.MALLOC_ARENA_MAX).toBe("2");
    const churn = [
      "let keep = [];",
      "for (let r = 0; r < 20; r++) { keep = []; for (let i = 0; i < 100000; i++) keep.push({ i }); }",
      'const s = require("node:v8").getHeapSpaceStatistics().find((x) => x.space_name === "new_space");',
      "console.log(s.space_size);",
    ].join("\n");
    const newSpace = (e: NodeJS.ProcessEnv) => {
      const run = spawnSync(process.execPath, ["-e", churn], { env: e, encoding: "utf8" });
      expect(run.stderr).toBe("");
      return Number(run.stdout);
    };
    expect(newSpace(env)).toBeLessThanOrEqual(2 * 1024 * 1024);
    // Control: without the unit's options the same churn grows it well past that.
    expect(newSpace({ PATH: env.PATH })).toBeGreaterThan(8 * 1024 * 1024);
  });
});
