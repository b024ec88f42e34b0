import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";

/**
 * A throw-away PostgreSQL 15 for tests (issue 14 §2): Debian's postgresql-15, in a temp dir, on a
 * free port of 127.0.0.1, with its unix socket in that dir. PostgreSQL refuses to run as root, so
 * as root every program runs as the `postgres` system user (DESIGN.md, Storage).
 */
export const PG_BIN = "/usr/lib/postgresql/15/bin";
const PG_USER = "postgres";
const INSTALL_HINT = "scripts/debian-packages.sh installs postgresql-15 as root";

export type TestPostgres = {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication, localhost only). */
  readonly url: string;
  readonly port: number;
  /** The temp dir: data directory, log and unix socket. Gone after stop(). */
  readonly dir: string;
  /** The postmaster's process id. */
  readonly pid: number;
  /** Fast shutdown, waits for it, removes the dir. Safe to call twice. */
  stop(): Promise<void>;
};

const asRoot = () => process.getuid?.() === 0;

/** The command line that runs `program` as an unprivileged user. */
function command(program: string, args: readonly string[]): [string, string[]] {
  const path = join(PG_BIN, program);
  return asRoot() ? ["runuser", ["-u", PG_USER, "--", path, ...args]] : [path, [...args]];
}

/** Why a test PostgreSQL cannot be started here, or null when it can. */
export function postgresMissing(): string | null {
  const absent = ["initdb", "pg_ctl", "postgres"].map((p) => join(PG_BIN, p)).filter((f) => !existsSync(f));
  if (absent.length > 0) return `${absent.join(", ")} not found (${INSTALL_HINT})`;
  if (asRoot() && spawnSync("id", ["-u", PG_USER]).status !== 0) {
    return `no ${PG_USER} system user to run PostgreSQL as (PostgreSQL refuses root; ${INSTALL_HINT})`;
  }
  const [cmd, args] = command("postgres", ["--version"]);
  const run = spawnSync(cmd, args, { encoding: "utf8", timeout: 20_000, cwd: tmpdir() });
  if (run.status === 0 && run.stdout.includes("PostgreSQL) 15.")) return null;
  const why = run.error?.message ?? (run.stderr.trim() || run.stdout.trim() || `exit status ${run.status}`);
  return `${cmd} ${args.join(" ")} failed (${why}; ${INSTALL_HINT})`;
}

function run(program: string, args: readonly string[], cwd: string): Promise<void> {
  const [cmd, argv] = command(program, args);
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { cwd, timeout: 60_000 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${program} failed: ${stderr.trim() || error.message}`));
      else resolve();
    });
  });
}

function uidGid(user: string): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync("id", [flag, user], { encoding: "utf8" }).stdout.trim());
  return { uid: id("-u"), gid: id("-g") };
}

/**
 * How the instance is tuned:
 * - "test": fast and disposable (no fsync at all), for tests;
 * - "bench": durable as the server's SQLite is (fsync and full page writes on; commits return
 *   before their WAL is flushed, as SQLite's synchronous=NORMAL in WAL mode does: a power loss may
 *   lose the last commits, never corrupt), with the memory and WAL room docs/scale-out.md sizes a
 *   small site's server with, for benchmarks.
 */
export type PostgresProfile = "test" | "bench";

const PROFILE_SETTINGS: Record<PostgresProfile, readonly string[]> = {
  test: ["fsync=off", "synchronous_commit=off", "full_page_writes=off", "shared_buffers=32MB"],
  bench: [
    "synchronous_commit=off",
    "shared_buffers=512MB",
    "effective_cache_size=1GB",
    "work_mem=16MB",
    "maintenance_work_mem=128MB",
    "max_wal_size=4GB",
    "checkpoint_timeout=15min",
    "wal_compression=on",
  ],
};

/** Reachable only from this machine: TCP on 127.0.0.1 and a socket in `dir`. */
function serverOptions(port: number, dir: string, profile: PostgresProfile): string {
  return [
    `port=${port}`,
    "listen_addresses=127.0.0.1",
    `unix_socket_directories=${dir}`,
    ...PROFILE_SETTINGS[profile],
    // A whole test run on PostgreSQL: a few test files at once, each a server with its pool.
    "max_connections=200",
  ]
    .map((setting) => `-c ${setting}`)
    .join(" ");
}

/** An instance from its first file on: cleanup finds the postmaster through postmaster.pid. */
type Live = { dir: string; data: string; watchdog: ChildProcess };
const live = new Set<Live>();
let exitHook = false;

/**
 * The last resort when the test process ends without stop(): an exit (a crash included) stops
 * every instance still running at once (immediate shutdown) and removes its dir.
 */
function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  process.on("exit", () => {
    for (const instance of live) {
      killNow(instance.data);
      instance.watchdog.kill("SIGKILL");
      rmSync(instance.dir, { recursive: true, force: true });
    }
    live.clear();
  });
}

/** Whether `pid` runs: a zombie (exited, not yet reaped by a PID 1 that may never reap) does not. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** The postmaster's pid, from the first line of postmaster.pid; null before it runs or once it is gone. */
function postmasterPid(data: string): number | null {
  try {
    const pid = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** SIGQUIT is PostgreSQL's immediate shutdown: the postmaster ends its children, then exits. */
function killNow(data: string): void {
  const pid = postmasterPid(data);
  if (pid === null) return;
  try {
    process.kill(pid, "SIGQUIT");
  } catch {
    return;
  }
  const waitedUntil = Date.now() + 5_000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (alive(pid) && Date.now() < waitedUntil) Atomics.wait(pause, 0, 0, 20);
}

/**
 * Covers what the exit hook cannot: a test process killed outright (SIGKILL, a worker torn down).
 * A detached shell polls for this process and, once it is gone, shuts the instance down.
 */
function startWatchdog(dir: string, data: string): ChildProcess {
  // A zombie (exited, not yet reaped) counts as gone: PID 1 of a container may never reap.
  const script = `running() { s=$(sed 's/.*) //' /proc/$1/stat 2>/dev/null | cut -c1); [ -n "$s" ] && [ "$s" != Z ]; }
while running ${process.pid}; do sleep 1; done
pid=$(head -n 1 '${data}/postmaster.pid' 2>/dev/null)
if [ -n "$pid" ]; then
  kill -QUIT "$pid" 2>/dev/null
  i=0; while running "$pid" && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done
fi
rm -rf '${dir}'`;
  const watchdog = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
  watchdog.unref();
  return watchdog;
}

function logTail(dir: string): string {
  const file = join(dir, "postgres.log");
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").slice(-10).join("\n") : "";
}

async function launch(
  dir: string,
  data: string,
  profile: PostgresProfile,
): Promise<{ port: number; pid: number }> {
  let lastError: unknown;
  // A port free a moment ago may be taken before PostgreSQL binds it: try another.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const port = await freePort();
    try {
      const log = join(dir, "postgres.log");
      await run(
        "pg_ctl",
        ["start", "-D", data, "-w", "-t", "60", "-l", log, "-o", serverOptions(port, dir, profile)],
        dir,
      );
      const pid = postmasterPid(data);
      if (pid === null) throw new Error(`no postmaster pid in ${data}/postmaster.pid`);
      return { port, pid };
    } catch (error) {
      lastError = error;
      if (!logTail(dir).includes("could not bind")) break;
    }
  }
  throw new Error(`PostgreSQL did not start: ${String(lastError)}\n${logTail(dir)}`);
}

/**
 * Starts a throw-away PostgreSQL 15: `initdb` (UTF-8, C collation as the schema requires, trust
 * authentication) into a new temp dir, then the server on a free port, tuned for `profile`.
 */
export async function startPostgres(profile: PostgresProfile = "test"): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), "caudal-pg-"));
  const data = join(dir, "data");
  // Watched from the start, so that no moment of the start-up can leave a server behind.
  const instance: Live = { dir, data, watchdog: startWatchdog(dir, data) };
  live.add(instance);
  installExitHook();
  try {
    if (asRoot()) {
      const { uid, gid } = uidGid(PG_USER);
      chownSync(dir, uid, gid);
    }
    await run(
      "initdb",
      ["-D", data, "--no-sync", "-A", "trust", "-U", PG_USER, "-E", "UTF8", "--locale=C"],
      dir,
    );
    const { port, pid } = await launch(dir, data, profile);
    let stopped: Promise<void> | undefined;
    return {
      url: `postgres://${PG_USER}@127.0.0.1:${port}/postgres`,
      port,
      dir,
      pid,
      stop: () => {
        stopped ??= stop(instance);
        return stopped;
      },
    };
  } catch (error) {
    killNow(data);
    forget(instance);
    throw error;
  }
}

function forget(instance: Live): void {
  instance.watchdog.kill("SIGKILL");
  live.delete(instance);
  rmSync(instance.dir, { recursive: true, force: true });
}

async function stop(instance: Live): Promise<void> {
  try {
    await run("pg_ctl", ["stop", "-D", instance.data, "-m", "fast", "-w", "-t", "30"], instance.dir);
  } catch {
    killNow(instance.data);
  }
  forget(instance);
}
