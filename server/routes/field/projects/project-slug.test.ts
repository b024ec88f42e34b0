import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditOf, expectError } from "../../../testing/fixtures/field-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

type Project = {
  id: string;
  name: string;
  slug: string;
  sparkplug_edge_node_id: string;
  sparkplug_primary_host_id: string | null;
};

/** The project fields HMIs address it by: slug (Sparkplug group_id, UNS level), edge node and primary host. */
describe("edge projects: slug and Sparkplug names", () => {
  let t: TestServer;
  let token: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  const create = (body: Record<string, unknown>) => t.request<Project>("/api/edge/projects", { token, body });
  const replace = (id: string, body: Record<string, unknown>) =>
    t.request<Project>(`/api/edge/projects/${id}`, { method: "PUT", token, body });
  /** A name no other test uses, with accents and punctuation to fold. */
  const uniqueName = () => `Campo Ñandú — Clúster ${randomUUID().slice(0, 6)}`;

  it("derives the slug from the name, and appends -2, -3 while it is taken", async () => {
    const name = uniqueName();
    const expected = `campo-nandu-cluster-${name.slice(-6).toLowerCase()}`;
    const first = await create({ name });
    const second = await create({ name });
    const third = await create({ name: `${name}!` });
    expect([first.status, second.status, third.status]).toEqual([201, 201, 201]);
    expect(first.body.slug).toBe(expected);
    expect(second.body.slug).toBe(`${expected}-2`);
    expect(third.body.slug).toBe(`${expected}-3`);
    expect(first.body).toMatchObject({ sparkplug_edge_node_id: "agent", sparkplug_primary_host_id: null });
  });

  it("a name without a letter or digit gives the slug project", async () => {
    const res = await create({ name: "¡¡¡ —— !!!" });
    expect(res.status).toBe(201);
    expect(res.body.slug).toMatch(/^project(-\d+)?$/);
  });

  it("takes a slug and Sparkplug ids given on create; a slug another project has is a 409", async () => {
    const slug = `rubiales-${randomUUID().slice(0, 8)}`;
    const res = await create({
      name: "Rubiales",
      slug,
      sparkplug_edge_node_id: "Gateway_1.a",
      sparkplug_primary_host_id: "scada-1",
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      slug,
      sparkplug_edge_node_id: "Gateway_1.a",
      sparkplug_primary_host_id: "scada-1",
    });
    const before = (await t.request<Project[]>("/api/edge/projects", { token })).body.length;
    const clash = await create({ name: "Another", slug });
    expectError(clash, 409, "Conflict", "slug");
    expect((await t.request<Project[]>("/api/edge/projects", { token })).body.length).toBe(before);
  });

  it("PUT keeps the slug when omitted (even on rename), changes it when given, 409 when taken", async () => {
    const a = (await create({ name: uniqueName(), sparkplug_primary_host_id: "scada-2" })).body;
    const b = (await create({ name: uniqueName() })).body;

    const renamed = await replace(a.id, { name: "Renamed" });
    expect(renamed.status).toBe(200);
    // The Sparkplug ids are ordinary fields: omitted, they go back to their defaults.
    expect(renamed.body).toMatchObject({
      name: "Renamed",
      slug: a.slug,
      sparkplug_edge_node_id: "agent",
      sparkplug_primary_host_id: null,
    });

    const slug = `moved-${randomUUID().slice(0, 8)}`;
    const moved = await replace(a.id, { name: "Renamed", slug, sparkplug_edge_node_id: "edge-7" });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ slug, sparkplug_edge_node_id: "edge-7" });
    expect((await replace(a.id, { name: "Renamed", slug })).status).toBe(200);

    expectError(await replace(b.id, { name: "b", slug }), 409, "Conflict", "slug");
    const got = await t.request<Project>(`/api/edge/projects/${b.id}`, { token });
    expect(got.body.slug).toBe(b.slug);

    const audit = (await auditOf(t, a.id)).filter((e) => e.action === "update");
    const last = JSON.parse(audit.at(-1)?.after ?? "{}") as Project;
    expect(last).toMatchObject({ slug, sparkplug_edge_node_id: "agent" });
  });

  // On PostgreSQL concurrent transactions each check the slug before any of them commits: the
  // unique index must end up answering as the check does, never as a 500.
  it("concurrent creates of one name each get their own slug; of one slug, one 201 and 409s", async () => {
    const name = uniqueName();
    const derived = await Promise.all(Array.from({ length: 8 }, () => create({ name })));
    expect(derived.map((r) => r.status)).toEqual(new Array(8).fill(201));
    expect(new Set(derived.map((r) => r.body.slug)).size).toBe(8);

    const slug = `race-${randomUUID().slice(0, 8)}`;
    const asked = await Promise.all(Array.from({ length: 8 }, (_, i) => create({ name: `Race ${i}`, slug })));
    expect(asked.map((r) => r.status).sort()).toEqual([201, ...new Array(7).fill(409)]);
  });

  it("concurrent PUTs of one slug onto different projects: one 200 and 409s", async () => {
    const ids = await Promise.all(
      Array.from({ length: 8 }, async () => (await create({ name: uniqueName() })).body.id),
    );
    const slug = `race-${randomUUID().slice(0, 8)}`;
    const answers = await Promise.all(ids.map((id) => replace(id, { name: "Racer", slug })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, ...new Array(7).fill(409)]);
  });
});
