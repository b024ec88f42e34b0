import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TestServer } from "../../testing/harness.ts";

const modeOf = (path: string) => statSync(path).mode & 0o777;
const DB_FILES = ["caudal.db", "caudal.db-wal", "caudal.db-shm"];

/**
 * The database holds password hashes, encrypted secrets and all field data: only the server's own
 * user may read it, whatever the umask.
 */
describe("DATA_DIR and database file modes", () => {
  let root: string;
  let t: TestServer | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  async function startIn(dataDir: string, umask = 0o022): Promise<TestServer> {
    const saved = process.umask(umask);
    try {
      t = await TestServer.start({ DATA_DIR: dataDir });
    } finally {
      process.umask(saved);
    }
    // A write, so the WAL and its index exist.
    await t.admin();
    return t;
  }

  it("a DATA_DIR Caudal creates is 0700; caudal.db, -wal and -shm are 0600", async () => {
    root = mkdtempSync(join(tmpdir(), "caudal-modes-"));
    const dataDir = join(root, "nested", "data");
    await startIn(dataDir);
    expect(modeOf(dataDir).toString(8)).toBe("700");
    for (const file of DB_FILES) {
      expect(existsSync(join(dataDir, file)), file).toBe(true);
      expect(modeOf(join(dataDir, file)).toString(8), file).toBe("600");
    }
  });

  it("with a permissive umask too", async () => {
    root = mkdtempSync(join(tmpdir(), "caudal-modes-"));
    const dataDir = join(root, "data");
    await startIn(dataDir, 0o000);
    expect(modeOf(dataDir).toString(8)).toBe("700");
    for (const file of DB_FILES) expect(modeOf(join(dataDir, file)).toString(8), file).toBe("600");
  });

  it("files an older version left readable are tightened; an existing DATA_DIR keeps its mode", async () => {
    root = mkdtempSync(join(tmpdir(), "caudal-modes-"));
    const dataDir = join(root, "data");
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    const server = await startIn(dataDir);
    await server.restart(async () => {
      for (const file of DB_FILES) {
        if (existsSync(join(dataDir, file))) chmodSync(join(dataDir, file), 0o644);
      }
    });
    await server.request("/health");
    expect(modeOf(dataDir).toString(8)).toBe("755");
    for (const file of DB_FILES) {
      if (existsSync(join(dataDir, file))) expect(modeOf(join(dataDir, file)).toString(8), file).toBe("600");
    }
    expect(modeOf(join(dataDir, "caudal.db")).toString(8)).toBe("600");
  });
});
