import { afterAll, beforeAll, describe, it } from "vitest";
import { expectError } from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

/** Each bad field of CreateAssetRequest is a 400 naming it, on POST and PUT. */
describe("edge assets: 400 per bad field", () => {
  let t: TestServer;
  let token: string;
  let projectId: string;
  let assetId: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
    projectId = await t.project();
    assetId = await t.asset(projectId);
  });
  afterAll(async () => t.stop());

  const valid = () => ({ project_id: projectId, name: "W-1", asset_type: "well" });
  const cases: [string, (v: Record<string, unknown>) => Record<string, unknown>, string][] = [
    ["missing project_id", ({ project_id: _, ...v }) => v, "project_id"],
    ["project_id not a UUID", (v) => ({ ...v, project_id: "p-1" }), "project_id"],
    ["missing name", ({ name: _, ...v }) => v, "name"],
    ["blank name", (v) => ({ ...v, name: "  " }), "name"],
    ["name too long", (v) => ({ ...v, name: "n".repeat(201) }), "name"],
    ["missing asset_type", ({ asset_type: _, ...v }) => v, "asset_type"],
    ["unknown asset_type", (v) => ({ ...v, asset_type: "compressor" }), "asset_type"],
    ["latitude above 90", (v) => ({ ...v, latitude: 90.5, longitude: 0 }), "latitude"],
    ["latitude below -90", (v) => ({ ...v, latitude: -91, longitude: 0 }), "latitude"],
    ["latitude a string", (v) => ({ ...v, latitude: "3.9", longitude: 0 }), "latitude"],
    ["longitude above 180", (v) => ({ ...v, latitude: 0, longitude: 181 }), "longitude"],
    ["longitude below -180", (v) => ({ ...v, latitude: 0, longitude: -180.01 }), "longitude"],
    ["latitude without longitude", (v) => ({ ...v, latitude: 4 }), "longitude"],
    ["longitude without latitude", (v) => ({ ...v, longitude: -72 }), "latitude"],
  ];

  for (const [label, mutate, field] of cases) {
    it(`${label} → 400 (${field})`, async () => {
      const body = mutate(valid());
      expectError(await t.request("/api/edge/assets", { token, body }), 400, "ValidationFailed", field);
      expectError(
        await t.request(`/api/edge/assets/${assetId}`, { method: "PUT", token, body }),
        400,
        "ValidationFailed",
        field,
      );
    });
  }

  it("malformed JSON → 400", async () => {
    expectError(await t.request("/api/edge/assets", { token, rawBody: "{oops" }), 400, "BadRequest");
    expectError(
      await t.request(`/api/edge/assets/${assetId}`, { method: "PUT", token, rawBody: "[" }),
      400,
      "BadRequest",
    );
  });

  it("ids that are not UUIDs → 400", async () => {
    expectError(await t.request("/api/edge/assets/123", { token }), 400, "ValidationFailed", "id");
    expectError(
      await t.request("/api/edge/projects/abc/assets", { token }),
      400,
      "ValidationFailed",
      "project_id",
    );
  });
});
