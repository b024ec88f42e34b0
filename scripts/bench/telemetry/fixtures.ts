import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serverConfigSchema } from "../../../server/config.ts";
import { createLogger } from "../../../server/logger.ts";
import { CaudalServer } from "../../../server/server.ts";
import type { BenchBackend } from "../backend.ts";

export type BenchServer = {
  server: CaudalServer;
  base: string;
  /** An operador assigned to the project: the role a field integration would use. */
  token: string;
  projectId: string;
  assets: string[];
  stop(): Promise<void>;
};

async function call<T>(
  base: string,
  path: string,
  body: unknown,
  token?: string,
  method = "POST",
): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/**
 * A fresh server (own DATA_DIR, and its own database on `backend`; SQLite in DATA_DIR when none is
 * given) with one project, `assets` wells and an operador.
 */
export async function startBenchServer(assets: number, backend?: BenchBackend): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "caudal-bench-telemetry-"));
  const database = await backend?.database();
  const config = serverConfigSchema.parse({
    PORT: "0",
    HOST: "127.0.0.1",
    MQTT_PORT: "0",
    DATA_DIR: dataDir,
    NODE_ENV: "test",
    // A request log line per request would be measured too; at this rate operators run "warn".
    LOG_LEVEL: "warn",
    TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    LOGIN_RATE_LIMIT: "1000000",
    LOGIN_RATE_LIMIT_PER_ADDRESS: "1000000",
    // Unset: the server's default (from the CPU count); `HTTP_WORKERS=0 npm run bench -- telemetry`
    // measures the main thread alone.
    ...(process.env.HTTP_WORKERS ? { HTTP_WORKERS: process.env.HTTP_WORKERS } : {}),
    ...(process.env.TELEMETRY_BLOCK_POINTS
      ? { TELEMETRY_BLOCK_POINTS: process.env.TELEMETRY_BLOCK_POINTS }
      : {}),
    // `TELEMETRY_PACK_AFTER_HOURS=9600` keeps packing off the measured window (to tell its cost apart).
    ...(process.env.TELEMETRY_PACK_AFTER_HOURS
      ? { TELEMETRY_PACK_AFTER_HOURS: process.env.TELEMETRY_PACK_AFTER_HOURS }
      : {}),
    ...database?.env,
  });
  const server = new CaudalServer({ config, logger: createLogger("warn") });
  await server.start();
  const base = `http://127.0.0.1:${server.port}`;
  const { token: root } = await call<{ token: string }>(base, "/api/auth/setup/register", {
    email: "bench@caudal.test",
    name: "Bench",
    password: "bench-password-1",
  });
  const { id: projectId } = await call<{ id: string }>(
    base,
    "/api/edge/projects",
    { name: "Bench field" },
    root,
  );
  const ids: string[] = [];
  for (let i = 0; i < assets; i++) {
    const asset = await call<{ id: string }>(
      base,
      "/api/edge/assets",
      { project_id: projectId, name: `well-${i}`, asset_type: "well" },
      root,
    );
    ids.push(asset.id);
  }
  const email = "integration@caudal.test";
  const password = "bench-password-2";
  const user = await call<{ id: string }>(
    base,
    "/api/admin/users",
    { email, name: "Integration", role: "operador", password },
    root,
  );
  await call(base, `/api/admin/users/${user.id}/projects`, { project_ids: [projectId] }, root, "PUT");
  const { token } = await call<{ token: string }>(base, "/api/auth/login", { email, password });
  return {
    server,
    base,
    token,
    projectId,
    assets: ids,
    stop: async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}
