import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ErrorBody,
  type Field,
  field,
  iso,
  postBatch,
} from "../../testing/fixtures/telemetry-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

const SEC = 1_000;
const HEADER = "timestamp,variable,value,unit";

describe("GET /api/telemetry/{asset_id} as CSV", () => {
  let t: TestServer;
  let f: Field;
  let asset: string;
  let base: number;
  beforeAll(async () => {
    t = await TestServer.start();
    f = await field(t);
    asset = await t.asset(f.projectId);
    base = t.clock.now().getTime() - 3_600_000;
    const items = Array.from({ length: 150 }, (_, i) => ({
      asset_id: asset,
      timestamp: iso(base + i * SEC),
      readings: [
        { variable: "pressure", value: i + 0.5, unit: "psi" },
        ...(i % 50 === 0 ? [{ variable: 'tag "A", B', value: -i, unit: "m\r\n3" }] : []),
      ],
    }));
    expect((await postBatch(t, f.operador, items)).status).toBe(201);
  });
  afterAll(async () => t.stop());

  const get = (query: string, headers: Record<string, string> = {}, token = f.operador) =>
    t.request<ErrorBody>(`/api/telemetry/${asset}${query}`, { token, headers });
  const lines = (text: string) => text.split("\r\n");

  it("streams every reading ascending, RFC 4180 quoted, as an attachment", async () => {
    const res = await get("?format=csv");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="telemetry-${asset}.csv"`);
    const rows = lines(res.text);
    // Header, 150 + 3 readings (each of the 3 splits once more at its quoted CRLF), and the final
    // CRLF's empty remainder.
    expect(rows).toHaveLength(1 + 153 + 3 + 1);
    expect(rows.at(-1)).toBe("");
    expect(rows.slice(0, 4)).toEqual([
      HEADER,
      `${iso(base)},pressure,0.5,psi`,
      // The quoted field holds a CRLF: split by CRLF it spans two pieces.
      `${iso(base)},"tag ""A"", B",0,"m`,
      `3"`,
    ]);
    expect(rows.at(-2)).toBe(`${iso(base + 149 * SEC)},pressure,149.5,psi`);
    // No default page limit in CSV: all 150 timestamps of pressure are there.
    expect(rows.filter((r) => r.includes(",pressure,"))).toHaveLength(150);
  });

  it("honours from, to, variable and an explicit limit (the newest `limit` timestamps, ascending)", async () => {
    const ranged = await get(
      `?format=csv&from=${iso(base + 10 * SEC)}&to=${iso(base + 12 * SEC)}&variable=pressure`,
    );
    expect(lines(ranged.text)).toEqual([
      HEADER,
      `${iso(base + 10 * SEC)},pressure,10.5,psi`,
      `${iso(base + 11 * SEC)},pressure,11.5,psi`,
      `${iso(base + 12 * SEC)},pressure,12.5,psi`,
      "",
    ]);
    const limited = await get("?format=csv&limit=2");
    expect(lines(limited.text)).toEqual([
      HEADER,
      `${iso(base + 148 * SEC)},pressure,148.5,psi`,
      `${iso(base + 149 * SEC)},pressure,149.5,psi`,
      "",
    ]);
    const none = await get("?format=csv&variable=nothing");
    expect(none.text).toBe(`${HEADER}\r\n`);
  });

  it("Accept: text/csv selects CSV unless JSON is preferred; format wins over Accept", async () => {
    const csv = await get("?limit=1", { accept: "text/csv" });
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(lines(csv.text)[0]).toBe(HEADER);
    const preferred = await get("?limit=1", { accept: "application/json;q=0.5, text/csv" });
    expect(preferred.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    for (const accept of ["application/json, text/csv", "text/csv;q=0.2, application/json", "*/*"]) {
      const res = await get("?limit=1", { accept });
      expect(res.headers.get("content-type"), accept).toMatch(/^application\/json/);
    }
    const forced = await get("?limit=1&format=json", { accept: "text/csv" });
    expect(forced.headers.get("content-type")).toMatch(/^application\/json/);
  });

  it("errors stay JSON: 400, 401, 403, 404 before any CSV is sent", async () => {
    const bad = await get(`?format=csv&from=${iso(base + SEC)}&to=${iso(base)}`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: "ValidationFailed", message: "from: must not be after to" });
    expect((await get("?format=csv&limit=0")).status).toBe(400);
    expect((await t.request(`/api/telemetry/${asset}?format=csv`)).status).toBe(401);
    expect((await get("?format=csv", {}, f.reader)).status).toBe(403);
    const foreign = await t.request<ErrorBody>(`/api/telemetry/${f.foreignAssetId}?format=csv`, {
      token: f.operador,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.headers.get("content-type")).toMatch(/^application\/json/);
    expect(
      (
        await t.request(`/api/telemetry/${randomUUID()}`, {
          token: f.operador,
          headers: { accept: "text/csv" },
        })
      ).status,
    ).toBe(404);
  });
});
