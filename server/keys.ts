import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ServerConfig } from "./config.ts";
import { DATA_DIR_MODE } from "./data-dir.ts";
import type { Keys } from "./services/context.ts";

/**
 * Key material. JWT_SECRET from the environment, or else a key generated once into
 * DATA_DIR/jwt-secret with mode 0600 (a wider mode is tightened).
 */
export function loadKeys(config: ServerConfig): Keys {
  return {
    jwt: new TextEncoder().encode(config.JWT_SECRET ?? fileSecret(join(config.DATA_DIR, "jwt-secret"))),
    totp: Buffer.from(config.TOTP_SECRET_ENCRYPTION_KEY, "base64"),
  };
}

function fileSecret(path: string): string {
  if (!existsSync(path)) {
    mkdirSync(join(path, ".."), { recursive: true, mode: DATA_DIR_MODE });
    writeFileSync(path, `${randomBytes(48).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
  }
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  return readFileSync(path, "utf8").trim();
}
