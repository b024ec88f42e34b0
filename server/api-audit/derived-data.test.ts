import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tableProbe } from "../testing/table-probe.ts";
import { buildTree, type ProjectTree, startAuditServer } from "./fixtures.ts";
import { contractProblems, responseProblems } from "./http-audit.ts";
import { apiOperations, fetchDocument, type Operation } from "./openapi-model.ts";

/*
 * What aggregates stored data — the 5-minute history and the ANH daily report — must answer within
 * its contract whatever valid data it finds:
 * - values valid one by one (the document bounds neither a reading nor, before this audit, a
 *   record quantity) whose sum overflows a double to Infinity;
 * - readings committed a moment before the report is generated (they reach the 5-minute rollups,
 *   which the report reads, in a background pass): the report's bytes are hashed and sealed.
 */

const t = await startAuditServer();
const operations = apiOperations(await fetchDocument(t));
/** A's tank holds two readings of 1e308 in one bucket of the report day. */
let A: ProjectTree;
/** F gets readings right before its report is generated. */
let F: ProjectTree;
let token = "";

function operation(id: string): Operation {
  const op = operations.find((o) => o.id === id);
  if (!op) throw new Error(`${id} is not in the document`);
  return op;
}

/**
 * Two readings at the 1e15 bound in one 5-minute bucket of the report day, on A's tank; then a
 * stored 5-minute rollup whose sum overflowed (data written before values were bounded, or by
 * hand): the report must refuse it rather than crash.
 */
async function ingestBoundaryReadings(): Promise<void> {
  for (const second of [1, 2]) {
    const res = await t.request("/api/telemetry", {
      token,
      body: {
        asset_id: A.assets.tank,
        timestamp: `${A.reportDate}T17:00:0${second}.000Z`,
        readings: [{ variable: "boundary", value: 1e15 }],
      },
    });
    expect(res.status).toBe(201);
  }
  const seed = await t.request("/api/telemetry", {
    token,
    body: {
      asset_id: A.assets.tank,
      timestamp: `${A.reportDate}T18:00:00.000Z`,
      readings: [{ variable: "overflow", value: 1 }],
    },
  });
  expect(seed.status).toBe(201);
  await t.request(
    `/api/telemetry/${A.assets.tank}/history?from=${A.reportDate}T00:00:00Z&to=${A.reportDate}T23:59:00Z`,
    { token },
  );
  const probe = tableProbe(t.server);
  const [series] = await probe.rows<{ id: number }>("telemetry_series", {
    asset_id: A.assets.tank,
    variable: "overflow",
  });
  if (!series) throw new Error("no overflow series");
  await probe.run("UPDATE telemetry_rollup_5m SET count = 2, sum = ?, max = 1.7e308 WHERE series_id = ?", [
    Number.POSITIVE_INFINITY,
    series.id,
  ]);
}

/** Rows that a refused report must leave alone. */
const stored = async () => ({
  reports: await tableProbe(t.server).count("anh_reports"),
  audit: await tableProbe(t.server).count("audit_log"),
});

beforeAll(async () => {
  token = (await t.admin()).token;
  A = await buildTree(t, "A");
  F = await buildTree(t, "F");
  await ingestBoundaryReadings();
}, 60_000);

afterAll(() => t.stop());

describe("record quantities", () => {
  it("are bounded, so a day's totals stay finite (400 above 1e15)", async () => {
    const body = {
      project_id: A.projectId,
      movement_type: "production",
      timestamp: `${A.reportDate}T18:00:00Z`,
    };
    const over = await t.request("/api/movements", { token, body: { ...body, volume_bbls: 1e308 } });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({
      error: "ValidationFailed",
      message: expect.stringContaining("volume_bbls"),
    });
    const max = await t.request("/api/movements", { token, body: { ...body, volume_bbls: 1e15 } });
    expect(max.status).toBe(201);
  });
});

describe("the ANH daily report of a day whose readings sum past the range of a double", () => {
  it("is refused with a 409 naming the figure, and nothing is written", async () => {
    const before = await stored();
    const res = await t.request("/api/anh/reports/generate", {
      token,
      body: { project_id: A.projectId, report_date: A.reportDate },
    });
    expect(contractProblems(res)).toEqual([]);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: "Conflict", message: expect.stringContaining("avg") });
    const after = await stored();
    expect(after).toEqual(before);
  });
});

describe("telemetry values", () => {
  it("are bounded at ±1e15, so rollup sums stay finite (400 beyond, naming the field)", async () => {
    const over = await t.request("/api/telemetry", {
      token,
      body: { asset_id: A.assets.tank, readings: [{ variable: "boundary", value: 1e308 }] },
    });
    expect(over.status).toBe(400);
    expect(over.body).toMatchObject({ error: "ValidationFailed", message: expect.stringContaining("value") });
  });

  it("at the bound, the 5-minute history answers in its declared schema (avg_value a number)", async () => {
    const res = await t.request(
      `/api/telemetry/${A.assets.tank}/history?from=${A.reportDate}T16:55:00Z&to=${A.reportDate}T17:10:00Z`,
      { token },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      expect.objectContaining({ variable: "boundary", max_value: 1e15, avg_value: 1e15 }),
    ]);
    expect(responseProblems(operation("GET /api/telemetry/{asset_id}/history"), res)).toEqual([]);
  });
});

type Content = {
  telemetry: { assets: { asset_id: string; variables: { variable: string; count: number }[] }[] };
};

describe("POST /api/anh/reports/generate right after an upload", () => {
  it("counts every reading committed before it", async () => {
    const readings = Array.from({ length: 5 }, (_, i) => ({
      asset_id: F.assets.station,
      timestamp: `${F.reportDate}T15:0${i}:00.000Z`,
      readings: [{ variable: "late_upload", value: i }],
    }));
    const upload = await t.request("/api/telemetry/batch", { token, body: { items: readings } });
    expect(upload.status).toBe(201);
    const generated = await t.request<{ id: string }>("/api/anh/reports/generate", {
      token,
      body: { project_id: F.projectId, report_date: F.reportDate },
    });
    expect(generated.status).toBe(201);
    const report = await t.request<{ content: Content }>(`/api/anh/reports/${generated.body.id}`, { token });
    const station = report.body.content.telemetry.assets.find((a) => a.asset_id === F.assets.station);
    expect(station?.variables.find((v) => v.variable === "late_upload")?.count).toBe(5);
  });
});
