import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { serverConfigSchema } from "../../server/config.ts";
import { createLogger } from "../../server/logger.ts";
import { CaudalServer } from "../../server/server.ts";
import { loadTest } from "./autocannon.ts";

// `npm run bench -- auth [--logins 50] [--connections 10] [--duration 10]`
// Login latency (argon2id verify included) and authenticated-request throughput on a real server.

const say = (line: string) => process.stdout.write(`${line}\n`);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      logins: { type: "string", default: "50" },
      connections: { type: "string", default: "10" },
      duration: { type: "string", default: "10" },
    },
  });
  const logins = Number(values.logins);
  const connections = Number(values.connections);
  const duration = Number(values.duration);

  const dataDir = mkdtempSync(join(tmpdir(), "caudal-bench-auth-"));
  const config = serverConfigSchema.parse({
    PORT: "0",
    HOST: "127.0.0.1",
    MQTT_PORT: "0",
    DATA_DIR: dataDir,
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    // The benchmark logs in from one address as one user: the limiter must not be what is measured.
    LOGIN_RATE_LIMIT: "1000000",
    LOGIN_RATE_LIMIT_PER_ADDRESS: "1000000",
  });
  const server = new CaudalServer({ config, logger: createLogger("silent") });
  await server.start();
  const base = `http://127.0.0.1:${server.port}`;
  try {
    const email = "bench@caudal.test";
    const password = "bench-password-1";
    const setup = await fetch(`${base}/api/auth/setup/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, name: "Bench", password }),
    });
    if (setup.status !== 201) throw new Error(`setup failed: ${setup.status} ${await setup.text()}`);

    const login = async () => {
      const res = await fetch(`${base}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password }),
      });
      const body = (await res.json()) as { token?: string };
      if (res.status !== 200 || !body.token) throw new Error(`login failed: ${res.status}`);
      return body.token;
    };

    // Warm-up: JIT, the decoy hash, SQLite page cache.
    for (let i = 0; i < 3; i++) await login();
    const samples: number[] = [];
    let token = "";
    for (let i = 0; i < logins; i++) {
      const started = performance.now();
      token = await login();
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);

    const load = await loadTest({
      url: `${base}/api/admin/roles`,
      connections,
      duration,
      headers: { authorization: `Bearer ${token}` },
    });

    say(
      "== auth benchmark (server in this process, autocannon in a child; SQLite WAL; argon2id m=19 MiB t=2 p=1)",
    );
    say(
      `login, ${logins} sequential:  median ${ms(percentile(samples, 50))}  p95 ${ms(percentile(samples, 95))}`,
    );
    say(
      `GET /api/admin/roles, ${connections} connections, ${duration} s:  ` +
        `median ${load.requests.p50} req/s  (mean ${load.requests.average.toFixed(0)})  ` +
        `latency p50 ${load.latency.p50} ms  p99 ${load.latency.p99} ms  ` +
        `total ${load.requests.total}  errors ${load.errors}  non-2xx ${load.non2xx}`,
    );
    say(
      JSON.stringify({
        login_median_ms: Number(percentile(samples, 50).toFixed(2)),
        login_p95_ms: Number(percentile(samples, 95).toFixed(2)),
        roles_req_per_s_median: load.requests.p50,
        roles_latency_p99_ms: load.latency.p99,
        roles_errors: load.errors + load.non2xx,
      }),
    );
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
