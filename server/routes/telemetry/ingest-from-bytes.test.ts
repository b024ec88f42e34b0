import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ago, type Field, field } from "../../testing/fixtures/telemetry-fixtures.ts";
import { type ApiResponse, TestServer } from "../../testing/harness.ts";
import { parseIngestColumns } from "./ingest-columns.ts";

// A spy around the real parser (this file runs with HTTP_WORKERS=0): which requests it took.
vi.mock("./ingest-columns.ts", async (importOriginal) => {
  const real = await importOriginal<typeof import("./ingest-columns.ts")>();
  return { ...real, parseIngestColumns: vi.fn(real.parseIngestColumns) };
});
const parsed = vi.mocked(parseIngestColumns);

/** What a client sees, less what differs per request (Date, the request id, the clock in a message). */
const answer = (res: ApiResponse) => {
  const headers = [...res.headers].filter(([k]) => k !== "date" && k !== "x-request-id");
  return { status: res.status, text: res.text.replace(/\(\d{4}-[\d-]+T[\d:.]+Z\)/, "(now)"), headers };
};

/** The same body with one string escaped ("v" as "\u0076"): JSON.parse reads it alike, the byte parser declines it. */
const escaped = (body: string) => body.replace('"variable":"v"', '"variable":"\\u0076"');

describe("ingest bodies read from their bytes answer as the validators' path does", () => {
  let t: TestServer;
  let f: Field;
  beforeAll(async () => {
    t = await TestServer.start({ HTTP_WORKERS: "0" });
    f = await field(t);
  });
  afterAll(async () => t.stop());

  async function both(path: string, body: (asset: string) => string, asset?: () => Promise<string>) {
    const send = async (text: string) => {
      parsed.mockClear();
      const res = await t.request(path, { rawBody: text, token: f.operador });
      const took = parsed.mock.results.some((r) => r.type === "return" && r.value !== undefined);
      return { res, took };
    };
    const fast = await send(body(asset ? await asset() : randomUUID()));
    const slow = await send(escaped(body(asset ? await asset() : randomUUID())));
    expect(fast.took).toBe(true);
    expect(slow.took).toBe(false);
    expect(answer(fast.res)).toEqual(answer(slow.res));
    return fast.res;
  }

  const payload = (ts: string) => (asset: string) =>
    `{"asset_id":"${asset}","timestamp":"${ts}","readings":[{"variable":"v","value":-0.5e1,"unit":"C"},{"variable":"w","value":1E+2}]}`;

  it("POST /api/telemetry: 201 with the counts", async () => {
    const res = await both("/api/telemetry", payload(ago(t, 5)), () => t.asset(f.projectId));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ accepted: 2, duplicates: 0 });
  });

  it("POST /api/telemetry/batch: 201 with the counts", async () => {
    const batch = (asset: string) => `{"items":[${payload(ago(t, 9))(asset)},${payload(ago(t, 8))(asset)}]}`;
    const res = await both("/api/telemetry/batch", batch, () => t.asset(f.projectId));
    expect(res.body).toEqual({ accepted: 4, duplicates: 0 });
  });

  it("an asset outside the caller's projects: the service's 404, alike", async () => {
    expect((await both("/api/telemetry", payload(ago(t, 5)))).status).toBe(404);
  });

  it("a timestamp too far ahead: the service's 400, alike", async () => {
    const ahead = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    expect((await both("/api/telemetry", payload(ahead), () => t.asset(f.projectId))).status).toBe(400);
  });

  it("never reads a body whose content type is not plain JSON (the validators answer it)", async () => {
    parsed.mockClear();
    const asset = await t.asset(f.projectId);
    const res = await t.request("/api/telemetry", {
      rawBody: payload(ago(t, 3))(asset),
      token: f.operador,
      headers: { "content-type": "application/vnd.caudal+json" },
    });
    expect(res.status).toBe(201);
    expect(parsed).not.toHaveBeenCalled();
  });
});
