import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalBytes } from "../../../shared/jcs.ts";
import { type DatabaseHandle, openDatabase } from "../../store/sqlite/client.ts";
import { SqliteStore } from "../../store/sqlite/sqlite-store.ts";
import {
  GOLDEN_DAY,
  GOLDEN_IDENTITY,
  GOLDEN_PROJECT_ID,
  GOLDEN_TZ,
  seedGoldenDay,
} from "../../testing/fixtures/report-golden-fixtures.ts";
import { buildReportContent } from "./build-content.ts";
import { sha384Hex } from "./generate-report.ts";
import { productionDay } from "./production-day.ts";

/*
 * The bytes of a report over fixed data (every section, corrections, carried-over readings, gaps,
 * float sums) must not change when the storage under it does: this hash was taken from the
 * report built before the reports moved onto the store ports (issue 14), and a PostgreSQL
 * deployment holding the same rows must give it too.
 */
const GOLDEN_SHA384 =
  "a7cc7ed80cf22379a0d75c8ca7975435e04c19c063a558539afc2fc30c6ef0e690615528866405d13a4e822dc0e63ed4";

describe("ANH report bytes over fixed data", () => {
  let dir: string;
  let h: DatabaseHandle;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "anh-golden-"));
    h = openDatabase(join(dir, "caudal.db"));
    seedGoldenDay(h.db, h.sqlite);
  });
  afterEach(() => {
    h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("are the golden bytes: same RFC 8785 text, same SHA-384", async () => {
    const store = new SqliteStore(h);
    const project = await store.field.project(GOLDEN_PROJECT_ID);
    if (!project) throw new Error("the golden project was not seeded");
    const day = productionDay(GOLDEN_DAY, GOLDEN_TZ);
    const content = await store.transaction((tx) => buildReportContent(tx, project, day, GOLDEN_IDENTITY));
    const bytes = canonicalBytes(content);
    expect(bytes.length).toBe(9319);
    expect(sha384Hex(bytes)).toBe(GOLDEN_SHA384);
  });
});
