import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { parseEnv } from "node:util";

/** The settings `npm start` writes on first run; every other variable keeps its server default. */
export function defaultEnvFile(): string {
  return [
    "# Caudal configuration for `npm start`, written on first run. It holds secrets: keep it",
    "# private (mode 0600) and out of version control. Variables set in the shell take precedence.",
    "# Every variable is described in README.md.",
    "NODE_ENV=development",
    "PORT=8080",
    "MQTT_PORT=1883",
    "DATA_DIR=./data",
    "# AES-256-GCM key for TOTP secrets (base64 of 32 bytes). Changing it makes enrolled TOTP unusable.",
    `TOTP_SECRET_ENCRYPTION_KEY=${randomBytes(32).toString("base64")}`,
    "# HS256 key for access tokens. Changing it ends every session.",
    `JWT_SECRET=${randomBytes(48).toString("base64url")}`,
    "",
  ].join("\n");
}

export type EnvFileResult = { created: boolean; values: Record<string, string>; warnings: string[] };

/**
 * Reads `path` when it exists; otherwise plans its creation (fresh secrets, not yet written), so
 * that `npm start` can check everything before it changes a file.
 */
export function readEnvFile(path: string): EnvFileResult & { pending?: string } {
  if (!existsSync(path)) {
    const pending = defaultEnvFile();
    return { created: false, values: parseEnv(pending) as Record<string, string>, warnings: [], pending };
  }
  const warnings: string[] = [];
  if ((statSync(path).mode & 0o077) !== 0) {
    warnings.push(`${path} is readable by other users; it holds secrets: chmod 600 ${path}`);
  }
  return { created: false, values: parseEnv(readFileSync(path, "utf8")) as Record<string, string>, warnings };
}

/**
 * Writes the planned file, never overwriting: the `wx` flag fails if another process made it
 * first, and then that file is read instead.
 */
export function writeEnvFile(path: string, content: string): EnvFileResult {
  try {
    writeFileSync(path, content, { mode: 0o600, flag: "wx" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return readEnvFile(path);
  }
  return { created: true, values: parseEnv(content) as Record<string, string>, warnings: [] };
}

/** Creates `path` with fresh secrets when it does not exist, then parses it. */
export function ensureEnvFile(path: string): EnvFileResult {
  const planned = readEnvFile(path);
  return planned.pending === undefined ? planned : writeEnvFile(path, planned.pending);
}

/** The environment for the children: the file's values, overridden by what the shell already sets. */
export function mergeEnv(file: Record<string, string>, shell: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...file, ...shell };
}
