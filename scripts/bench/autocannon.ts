import { execFile } from "node:child_process";
import { createRequire } from "node:module";

export type LoadOptions = {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  headers?: Record<string, string>;
};

/** The percentiles autocannon reports for a histogram (only the ones used here). */
type Histogram = {
  average: number;
  p50: number;
  p90: number;
  p99: number;
  min: number;
  max: number;
  total: number;
};

export type LoadResult = {
  /** Per-second samples of completed requests. */
  requests: Histogram;
  /** Per-request milliseconds. */
  latency: Histogram;
  errors: number;
  timeouts: number;
  non2xx: number;
};

const cli = createRequire(import.meta.url).resolve("autocannon/autocannon.js");

/**
 * Runs autocannon (dev dependency) in its own process, so the load generator does not share the
 * event loop of the server it measures. Its `--json` output is the one place its shape is stated.
 */
export function loadTest(options: LoadOptions): Promise<LoadResult> {
  const args = [cli, "--json", "-c", String(options.connections), "-d", String(options.duration)];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push("-H", `${k}=${v}`);
  args.push(options.url);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`autocannon failed: ${err.message}\n${stderr}`));
      const last = stdout.trim().split("\n").at(-1) ?? "";
      try {
        resolve(JSON.parse(last) as LoadResult);
      } catch {
        reject(new Error(`autocannon printed no JSON result:\n${stdout}\n${stderr}`));
      }
    });
  });
}
