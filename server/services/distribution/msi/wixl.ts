import { spawn } from "node:child_process";
import { setPriority } from "node:os";

/** wixl from msitools (Debian: wixl); scripts/debian-packages.sh installs it. */
export const WIXL = "wixl";
const OUTPUT_MAX_CHARS = 16_384;

/**
 * wixl's whole environment: PATH, to find it. It needs nothing else (it runs with `env -i`), and
 * the server's environment holds its secrets (DATABASE_URL, JWT_SECRET, ...), which a `$(env.X)`
 * in a WiX source would copy into the MSI.
 */
function wixlEnvironment(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin" };
}

export type WixlRun = { ok: true; output: string } | { ok: false; output: string; reason: string };

/**
 * Compiles `wxs` (a file name in `cwd`) into the x64 MSI `out` with wixl, a child process: the
 * event loop never waits for it. Killed after `timeoutMs` or when `signal` aborts; its combined
 * output (capped) is returned for the build log either way.
 */
export function runWixl(o: {
  cwd: string;
  wxs: string;
  out: string;
  timeoutMs: number;
  signal: AbortSignal;
}): Promise<WixlRun> {
  if (o.signal.aborted)
    return Promise.resolve({ ok: false, output: "", reason: "stopped: the server is shutting down" });
  return new Promise((resolve) => {
    let output = "";
    const keep = (chunk: Buffer) => {
      if (output.length < OUTPUT_MAX_CHARS) output += chunk.toString("utf8").slice(0, OUTPUT_MAX_CHARS);
    };
    const child = spawn(WIXL, ["--arch", "x64", "-o", o.out, o.wxs], {
      cwd: o.cwd,
      env: wixlEnvironment(),

      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    let stopped: string | null = null;
    const kill = (why: string) => {
      stopped = why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => kill(`wixl did not finish within ${o.timeoutMs / 1000} s`), o.timeoutMs);
    const onAbort = () => kill("stopped: the server is shutting down");
    o.signal.addEventListener("abort", onAbort, { once: true });
    const settle = (result: WixlRun) => {
      clearTimeout(timer);
      o.signal.removeEventListener("abort", onAbort);
      resolve(result);
    };
    child.once("spawn", () => {
      // Below the server's own priority: an MSI build must not slow requests down.
      if (child.pid !== undefined) {
        try {
          setPriority(child.pid, 10);
        } catch {
          // Not permitted here: the build still runs, at normal priority.
        }
      }
      if (o.signal.aborted) onAbort();
    });
    child.once("error", (err: NodeJS.ErrnoException) =>
      settle({
        ok: false,
        output: output.trim(),
        reason:
          err.code === "ENOENT"
            ? `${WIXL} is not installed (Debian package wixl; scripts/debian-packages.sh installs it)`
            : `${WIXL} could not start: ${err.message}`,
      }),
    );
    child.once("close", (code, signal) => {
      const text = output.trim();
      if (stopped) settle({ ok: false, output: text, reason: stopped });
      else if (code === 0) settle({ ok: true, output: text });
      else settle({ ok: false, output: text, reason: `${WIXL} exited with ${code ?? signal}` });
    });
  });
}
