import { afterAll, beforeAll, describe, it } from "vitest";
import { expectError } from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

/** Each bad field of CreateProjectRequest is a 400 naming it, on POST and on PUT, and nothing is written. */
describe("edge projects: 400 per bad field", () => {
  let t: TestServer;
  let token: string;
  let existing: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
    existing = await t.project();
  });
  afterAll(async () => t.stop());

  const cases: [string, Record<string, unknown>, string][] = [
    ["missing name", {}, "name"],
    ["blank name", { name: "   " }, "name"],
    ["name too long", { name: "x".repeat(201) }, "name"],
    ["name not a string", { name: 42 }, "name"],
    ["name with a control character", { name: "a\u0007b" }, "name"],
    ["description not a string", { name: "p", description: 5 }, "description"],
    ["description too long", { name: "p", description: "d".repeat(2001) }, "description"],
    ["location not a string", { name: "p", location: ["Meta"] }, "location"],
    ["location too long", { name: "p", location: "l".repeat(501) }, "location"],
    ["unknown time zone", { name: "p", timezone: "Mars/Olympus_Mons" }, "timezone"],
    ["time zone not a string", { name: "p", timezone: -5 }, "timezone"],
    ["is_active not a boolean", { name: "p", is_active: "yes" }, "is_active"],
    ["is_active null", { name: "p", is_active: null }, "is_active"],
    ["slug with upper case", { name: "p", slug: "Campo" }, "slug"],
    ["slug with a space", { name: "p", slug: "campo 4" }, "slug"],
    ["slug with a double hyphen", { name: "p", slug: "campo--4" }, "slug"],
    ["slug ending in a hyphen", { name: "p", slug: "campo-" }, "slug"],
    ["empty slug", { name: "p", slug: "" }, "slug"],
    ["slug too long", { name: "p", slug: "s".repeat(65) }, "slug"],
    ["slug not a string", { name: "p", slug: 4 }, "slug"],
    ["edge node id with a slash", { name: "p", sparkplug_edge_node_id: "a/b" }, "sparkplug_edge_node_id"],
    ["edge node id with #", { name: "p", sparkplug_edge_node_id: "a#" }, "sparkplug_edge_node_id"],
    ["empty edge node id", { name: "p", sparkplug_edge_node_id: "" }, "sparkplug_edge_node_id"],
    ["edge node id null", { name: "p", sparkplug_edge_node_id: null }, "sparkplug_edge_node_id"],
    ["primary host id with +", { name: "p", sparkplug_primary_host_id: "h+1" }, "sparkplug_primary_host_id"],
    [
      "primary host id too long",
      { name: "p", sparkplug_primary_host_id: "h".repeat(65) },
      "sparkplug_primary_host_id",
    ],
    [
      "primary host id not a string",
      { name: "p", sparkplug_primary_host_id: 7 },
      "sparkplug_primary_host_id",
    ],
  ];

  for (const [label, body, field] of cases) {
    it(`${label} → 400 (${field})`, async () => {
      expectError(await t.request("/api/edge/projects", { token, body }), 400, "ValidationFailed", field);
      expectError(
        await t.request(`/api/edge/projects/${existing}`, { method: "PUT", token, body }),
        400,
        "ValidationFailed",
        field,
      );
    });
  }

  it("malformed JSON → 400 on POST and PUT", async () => {
    expectError(await t.request("/api/edge/projects", { token, rawBody: '{"name": ' }), 400, "BadRequest");
    expectError(
      await t.request(`/api/edge/projects/${existing}`, { method: "PUT", token, rawBody: "{" }),
      400,
      "BadRequest",
    );
  });

  it("a JSON array or string body → 400", async () => {
    expectError(
      await t.request("/api/edge/projects", { token, body: [{ name: "p" }] }),
      400,
      "ValidationFailed",
    );
    expectError(await t.request("/api/edge/projects", { token, body: "p" }), 400, "ValidationFailed");
  });

  it("a refused PUT leaves the project as it was", async () => {
    const before = await t.request(`/api/edge/projects/${existing}`, { token });
    await t.request(`/api/edge/projects/${existing}`, {
      method: "PUT",
      token,
      body: { name: "ok", timezone: "x" },
    });
    const after = await t.request(`/api/edge/projects/${existing}`, { token });
    if (JSON.stringify(before.body) !== JSON.stringify(after.body)) throw new Error("project changed");
  });
});
