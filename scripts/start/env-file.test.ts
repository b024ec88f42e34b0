import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadServerConfig } from "../../server/config.ts";
import { ensureEnvFile, mergeEnv } from "./env-file.ts";

describe("the .env that npm start writes", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "caudal-env-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("is created once, mode 0600, with fresh valid secrets and the defaults", () => {
    const path = join(dir, ".env");
    const first = ensureEnvFile(path);
    expect(first.created).toBe(true);
    expect(first.warnings).toEqual([]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(first.values).toMatchObject({
      NODE_ENV: "development",
      PORT: "8080",
      MQTT_PORT: "1883",
      DATA_DIR: "./data",
    });
    expect(Buffer.from(first.values.TOTP_SECRET_ENCRYPTION_KEY ?? "", "base64")).toHaveLength(32);
    expect((first.values.JWT_SECRET ?? "").length).toBeGreaterThanOrEqual(32);
    // The server accepts it as is.
    expect(() => loadServerConfig(first.values)).not.toThrow();

    const other = ensureEnvFile(join(dir, "other.env"));
    expect(other.values.TOTP_SECRET_ENCRYPTION_KEY).not.toBe(first.values.TOTP_SECRET_ENCRYPTION_KEY);
    expect(other.values.JWT_SECRET).not.toBe(first.values.JWT_SECRET);
  });

  it("never overwrites an existing file", () => {
    const path = join(dir, ".env");
    writeFileSync(path, "PORT=9999\nLOG_LEVEL=debug\n", { mode: 0o600 });
    const result = ensureEnvFile(path);
    expect(result.created).toBe(false);
    expect(readFileSync(path, "utf8")).toBe("PORT=9999\nLOG_LEVEL=debug\n");
    expect(result.values).toEqual({ PORT: "9999", LOG_LEVEL: "debug" });
  });

  it("warns when the existing file is readable by others", () => {
    const path = join(dir, ".env");
    writeFileSync(path, "PORT=1\n");
    chmodSync(path, 0o644);
    expect(ensureEnvFile(path).warnings[0]).toMatch(/chmod 600/);
  });

  it("lets the shell override the file", () => {
    expect(mergeEnv({ PORT: "8080", DATA_DIR: "./data" }, { PORT: "9000" })).toEqual({
      PORT: "9000",
      DATA_DIR: "./data",
    });
  });
});
