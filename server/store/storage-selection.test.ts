import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../logger.ts";
import { TestServer } from "../testing/harness.ts";

const elsewhere = mkdtempSync(join(tmpdir(), "caudal-sqlite-url-"));
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

describe("the server's storage, chosen by DATABASE_URL", () => {
  it("sqlite:<file> keeps the data in that file, and the start-up log says which", async () => {
    const file = join(elsewhere, "site.db");
    const lines: string[] = [];
    const t = await TestServer.start(
      { DATABASE_URL: `sqlite:${file}` },
      { logger: createLogger("info", (line) => lines.push(line)) },
    );
    try {
      await t.project();
      expect(existsSync(file)).toBe(true);
      expect(existsSync(join(t.dataDir, "caudal.db"))).toBe(false);
      const storage = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "storage");
      expect(storage).toMatchObject({ engine: "sqlite", database: `sqlite:${file}` });
      expect((await t.request("/health")).status).toBe(200);
    } finally {
      await t.stop();
    }
  });
});
