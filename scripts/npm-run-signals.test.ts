import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const dirs: string[] = [];
const children: ChildProcess[] = [];
/** Processes under npm: killed after the test if they outlived it (they must not). */
const orphans: number[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const pid of orphans.splice(0)) if (alive(pid)) process.kill(pid, "SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "caudal-npm-run-"));
  dirs.push(dir);
  return dir;
}

/** The pids of `pid`'s children, from /proc (Linux). */
function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `npm run <script>` as a person would, waits for `ready` in its output, sends SIGTERM to the
 * npm process (what systemd, docker stop or a supervisor does), and reports how it ended.
 */
async function runAndTerminate(script: string, env: NodeJS.ProcessEnv, ready: string) {
  const npm = spawn("npm", ["run", script], { cwd: root, env: { ...process.env, ...env } });
  children.push(npm);
  let out = "";
  npm.stdout.on("data", (b: Buffer) => {
    out += b.toString();
  });
  npm.stderr.on("data", (b: Buffer) => {
    out += b.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once("exit", (code, signal) => resolve({ code, signal })),
  );
  await expect.poll(() => out, { timeout: 30_000, interval: 100 }).toContain(ready);
  const below = childPids(npm.pid ?? 0);
  orphans.push(...below.flatMap((pid) => [pid, ...childPids(pid)]));
  npm.kill("SIGTERM");
  const ended = await exited;
  return { ...ended, out, below };
}

describe("npm run server and npm run agent on SIGTERM", () => {
  it("npm run server stops the server in order and exits 0", async () => {
    const data = tempDir();
    const env = {
      PORT: "0",
      MQTT_PORT: "0",
      DATA_DIR: data,
      TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    };
    const { code, signal, out, below } = await runAndTerminate("server", env, '"msg":"http listening"');
    expect({ code, signal }, out).toEqual({ code: 0, signal: null });
    expect(out).toContain('"msg":"stopping","signal":"SIGTERM"');
    expect(out).toContain('"msg":"stopped"');
    expect(below.length).toBeGreaterThan(0);
    for (const pid of below) expect(alive(pid), `pid ${pid} outlived npm`).toBe(false);
  });

  it("npm run agent stops the agent in order and exits 0", async () => {
    const data = tempDir();
    const config = join(data, "agent.json");
    writeFileSync(
      config,
      JSON.stringify({
        version: 1,
        mqtt_url: "mqtt://127.0.0.1:1", // nothing listens: the agent keeps retrying, as in the field
        project_id: randomUUID(),
        agent_token: "cat_0123456789abcdef0123",
        data_dir: data,
        local_api_port: 0,
      }),
    );
    const { code, signal, out, below } = await runAndTerminate(
      "agent",
      { AGENT_CONFIG: config },
      "caudal-agent started",
    );
    expect({ code, signal }, out).toEqual({ code: 0, signal: null });
    expect(out).toContain("stopping on SIGTERM");
    for (const pid of below) expect(alive(pid), `pid ${pid} outlived npm`).toBe(false);
  });
});
