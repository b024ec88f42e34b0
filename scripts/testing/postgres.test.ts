import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { connectPool } from "../../server/store/postgres/client.ts";
import { postgresMissing, startPostgres, type TestPostgres } from "./postgres.ts";
import { requirePeer } from "./require-peer.ts";

const postgres = requirePeer("postgresql-15", postgresMissing);
const MODULE = fileURLToPath(new URL("./postgres.ts", import.meta.url));

/** The postmaster and every process it started: the pids whose parent is it. */
function processTree(pid: number): number[] {
  const children = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // Fields after the command (in parentheses, which may hold spaces): state, ppid, …
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [pid, ...children];
}

/** Running: present and not a zombie (exited, waiting to be reaped). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

function uidOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("Uid:"));
  return Number(line?.split(/\s+/)[1]);
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A child node process that starts an instance, prints it, then does `then`. */
function childWithInstance(
  then: string,
): Promise<{ pid: number; dir: string; child: ReturnType<typeof spawn> }> {
  const script = `import { startPostgres } from ${JSON.stringify(MODULE)};
const pg = await startPostgres();
process.stdout.write(JSON.stringify({ pid: pg.pid, dir: pg.dir }) + "\\n");
${then}`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve({ ...(JSON.parse(line) as { pid: number; dir: string }), child });
    });
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before starting: ${err.trim()}`)));
  });
}

postgres.describe("a throw-away PostgreSQL 15 for tests", () => {
  postgres.it(
    "starts two at once, each answers pg on its own port, and stop() leaves no process and no dir",
    async () => {
      const instances: TestPostgres[] = await Promise.all([startPostgres(), startPostgres()]);
      const [a, b] = instances;
      if (!a || !b) throw new Error("two instances expected");
      expect(a.port).not.toBe(b.port);
      expect(a.dir).not.toBe(b.dir);
      const trees = instances.map((pg) => processTree(pg.pid));
      for (const [i, pg] of instances.entries()) {
        expect(pg.url).toBe(`postgres://postgres@127.0.0.1:${pg.port}/postgres`);
        // The unix socket is in the instance's own dir; PostgreSQL runs unprivileged.
        expect(existsSync(join(pg.dir, `.s.PGSQL.${pg.port}`))).toBe(true);
        if (process.getuid?.() === 0) expect(uidOf(pg.pid)).not.toBe(0);
        expect(trees[i]?.length).toBeGreaterThan(2);
        const pool = connectPool(pg.url, { max: 1 });
        try {
          const { rows } = await pool.query<{ version: string; fsync: string; collate: string; sum: number }>(
            `SELECT version() AS version, current_setting('fsync') AS fsync,
                    current_setting('lc_collate') AS collate, 40 + 2 AS sum`,
          );
          expect(rows[0]?.version).toMatch(/^PostgreSQL 15\./);
          expect(rows[0]).toMatchObject({ fsync: "off", collate: "C", sum: 42 });
        } finally {
          await pool.end();
        }
      }
      await Promise.all(instances.map((pg) => pg.stop()));
      for (const [i, pg] of instances.entries()) {
        expect(trees[i]?.filter(alive)).toEqual([]);
        expect(existsSync(pg.dir)).toBe(false);
      }
      await a.stop(); // a second stop() is harmless
    },
    60_000,
  );

  postgres.it(
    "a test process that crashes leaves no PostgreSQL running (exit hook)",
    async () => {
      const { pid, dir, child } = await childWithInstance(`throw new Error("the test file crashed");`);
      const tree = processTree(pid);
      const code = await new Promise((resolve) => child.once("exit", resolve));
      expect(code).not.toBe(0);
      expect(tree.filter(alive)).toEqual([]);
      expect(existsSync(dir)).toBe(false);
    },
    60_000,
  );

  postgres.it(
    "a test process killed outright leaves no PostgreSQL running for long (watchdog)",
    async () => {
      const { pid, dir, child } = await childWithInstance("setInterval(() => {}, 1000);");
      const tree = processTree(pid);
      expect(tree.every(alive)).toBe(true);
      child.kill("SIGKILL");
      await until(
        "the watchdog to stop PostgreSQL",
        () => tree.every((p) => !alive(p)) && !existsSync(dir),
        10_000,
      );
    },
    60_000,
  );
});
