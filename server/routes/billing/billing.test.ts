import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditOf,
  createAsset,
  createDevice,
  createProject,
  expectError,
  seedBuckets,
  seedSeries,
  setClock,
  setLastReading,
} from "../../testing/fixtures/report-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";

type Invoice = {
  id: string;
  project_id: string;
  period: string;
  plan: string;
  amount_usd: number;
  status: string;
  issued_at: string;
  paid_at: string | null;
};

const at = (s: string) => Date.parse(s);

describe("billing: usage, subscriptions, invoices, summary, snapshots", () => {
  let t: TestServer;
  let root: string;
  let adminToken: string;
  let project: string;
  let second: string;
  let onStarter: string;
  let well: string;

  async function setPoints(projectId: string, period: string, points: number): Promise<void> {
    await tableProbe(t.server).run(
      `INSERT INTO usage_counters (project_id, period, telemetry_points) VALUES (?, ?, ?)
       ON CONFLICT (project_id, period) DO UPDATE SET telemetry_points = excluded.telemetry_points`,
      [projectId, period, points],
    );
  }

  beforeAll(async () => {
    t = await TestServer.start();
    setClock(t, at("2025-03-15T12:00:00Z"));
    root = (await t.admin()).token;
    adminToken = (await t.userWithRole("admin")).token;
    project = await createProject(t);
    second = await createProject(t);
    onStarter = await createProject(t);

    // Two enabled devices on a well that reported this month, one disabled; an enabled device on
    // an asset that never reported and one on an asset that last reported in February.
    well = await createAsset(t, project, "Pozo-1");
    await createDevice(t, well);
    await createDevice(t, well);
    await createDevice(t, well, false);
    await createDevice(t, await createAsset(t, project, "Silent"));
    const old = await createAsset(t, project, "Old");
    await createDevice(t, old);
    const wellSeries = await seedSeries(t, project, well, "pressure");
    await setLastReading(t, wellSeries, at("2025-03-15T11:00:00Z"), 1);
    await seedBuckets(t, wellSeries, [
      { bucket: at("2025-03-02T00:00:00Z"), count: 1, sum: 1, min: 1, max: 1 },
    ]);
    await setLastReading(t, await seedSeries(t, project, old, "pressure"), at("2025-02-27T00:00:00Z"), 1);
    await setPoints(project, "2025-03", 1_500_000);
    await setPoints(project, "2025-02", 7);
  });
  afterAll(async () => t.stop());

  it("a new project starts on starter: usage has its plan and cost, this month is invoiced", async () => {
    const res = await t.request(`/api/billing/usage?project_id=${project}`, { token: root });
    expect(res.status).toBe(200);
    // starter: $199 + 500 blocks of 1,000 extra points × $0.50.
    expect(res.body).toEqual({
      project_id: project,
      period_start: "2025-03-01T00:00:00.000Z",
      period_end: "2025-04-01T00:00:00.000Z",
      telemetry_points: 1_500_000,
      active_devices: 2,
      plan: "starter",
      estimated_cost_usd: 449,
    });
    const invoices = await t.request<Invoice[]>(`/api/billing/invoices?project_id=${project}`, {
      token: root,
    });
    expect(invoices.body).toEqual([
      expect.objectContaining({
        project_id: project,
        period: "2025-03",
        plan: "starter",
        amount_usd: 199,
        status: "pending",
        paid_at: null,
      }),
    ]);
    const [subscription] = (await auditOf(t, project)).filter((a) => a.entity === "subscription");
    expect(subscription).toMatchObject({ action: "create", after: JSON.stringify({ plan: "starter" }) });
    // The subscription starts with the project.
    const started = await t.server.store.billing.subscription(project);
    const created = (await t.server.store.field.project(project))?.createdAt;
    expect({
      plan: started?.plan,
      with_project: started?.startedAt.getTime() === created?.getTime(),
    }).toEqual({
      plan: "starter",
      with_project: true,
    });
  });

  it("setting a plan changes it from the next invoice on; issued invoices keep theirs", async () => {
    const change = await t.request<{
      issued_invoice: Invoice | null;
      plan: string;
      monthly_price_usd: number;
    }>(`/api/billing/admin/subscriptions/${project}`, {
      method: "PUT",
      token: root,
      body: { plan: "professional" },
    });
    expect(change.status).toBe(200);
    expect(change.body).toMatchObject({ plan: "professional", monthly_price_usd: 799, issued_invoice: null });
    const invoices = await t.request<Invoice[]>(`/api/billing/invoices?project_id=${project}`, {
      token: root,
    });
    expect(invoices.body.map((i) => [i.period, i.amount_usd, i.plan])).toEqual([["2025-03", 199, "starter"]]);
    expect(
      (await auditOf(t, project)).filter((a) => a.entity === "subscription").map((a) => a.action),
    ).toEqual(["create", "update"]);
  });

  it("invoice status: paid sets paid_at, any other status clears it; audited", async () => {
    const [invoice] = (
      await t.request<Invoice[]>(`/api/billing/invoices?project_id=${project}`, { token: root })
    ).body;
    const id = invoice?.id ?? "";
    const patch = (status: string, token = adminToken) =>
      t.request<Invoice>(`/api/billing/invoices/${id}/status`, { method: "PATCH", token, body: { status } });

    const paid = await patch("paid");
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe("paid");
    const paidAt = paid.body.paid_at;
    expect(Math.abs(Date.parse(paidAt ?? "") - t.clock.now().getTime())).toBeLessThan(60_000);

    expect((await patch("paid")).body.paid_at).toBe(paidAt);
    const overdue = await patch("overdue");
    expect(overdue.body).toMatchObject({ status: "overdue", paid_at: null });
    expect((await patch("cancelled")).body).toMatchObject({ status: "cancelled", paid_at: null });
    expect((await patch("pending")).body).toMatchObject({ status: "pending", paid_at: null });
    expect((await patch("paid", root)).body.status).toBe("paid");

    const statuses = (await auditOf(t, id)).map((a) => [a.action, JSON.parse(a.after).status]);
    expect(statuses).toEqual([
      ["create", "pending"],
      ["update", "paid"],
      ["update", "overdue"],
      ["update", "cancelled"],
      ["update", "pending"],
      ["update", "paid"],
    ]);
  });

  it("summary: paid revenue, subscriptions and MRR (superadmin only)", async () => {
    await t.request(`/api/billing/admin/subscriptions/${second}`, {
      method: "PUT",
      token: root,
      body: { plan: "enterprise" },
    });
    const [inv] = (await t.request<Invoice[]>(`/api/billing/invoices?project_id=${second}`, { token: root }))
      .body;
    await t.request(`/api/billing/invoices/${inv?.id}/status`, {
      method: "PATCH",
      token: root,
      body: { status: "paid" },
    });

    // Every project has a plan: professional, enterprise and the third one's starter. Each was
    // invoiced $199 (starter) on creation; two of those invoices are paid.
    const res = await t.request("/api/billing/admin/summary", { token: root });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      total_revenue_usd: 199 + 199,
      active_subscriptions: 3,
      mrr_usd: 799 + 2999 + 199,
    });
    expectError(await t.request("/api/billing/admin/summary", { token: adminToken }), 403, "Forbidden");
    expectError(await t.request("/api/billing/admin/summary"), 401, "Unauthorized");
  });

  it("snapshots store the usage measured now", async () => {
    const res = await t.request<Record<string, unknown>>("/api/billing/snapshots", {
      token: adminToken,
      body: { project_id: project },
    });
    expect(res.status).toBe(201);
    // professional: $799, 1.5M points and 2 devices are within its inclusions.
    expect(res.body).toMatchObject({
      project_id: project,
      telemetry_points: 1_500_000,
      active_devices: 2,
      plan: "professional",
      estimated_cost_usd: 799,
      period_start: "2025-03-01T00:00:00.000Z",
    });
    const [row] = await tableProbe(t.server).query(
      "SELECT telemetry_points, estimated_cost_cents FROM usage_snapshots WHERE id = ?",
      [res.body.id],
    );
    expect(row).toEqual({ telemetry_points: 1_500_000, estimated_cost_cents: 79_900 });
  });

  it("when the month closes the scheduler issues April's invoices, with March's overage", async () => {
    await setPoints(project, "2025-03", 10_250_001);
    setClock(t, at("2025-04-01T00:01:00Z"));
    const first = await t.server.scheduler.tick();
    expect(first.monthly_invoices).toEqual({ issued: 3, failed: 0 });
    expect((await t.server.scheduler.tick()).monthly_invoices).toEqual({ issued: 0, failed: 0 });

    const admin = await t.admin();
    const token = (await t.login(admin.email, admin.password)).body.token;
    const list = await t.request<Invoice[]>(`/api/billing/invoices?project_id=${project}`, { token });
    // professional: $799 + 251 blocks × $0.30 of March's extra points; 2 devices reported in March.
    expect(list.body.map((i) => [i.period, i.amount_usd, i.status])).toEqual([
      ["2025-04", 874.3, "pending"],
      ["2025-03", 199, "paid"],
    ]);
    const enterprise = await t.request<Invoice[]>(`/api/billing/invoices?project_id=${second}`, { token });
    expect(enterprise.body[0]).toMatchObject({ period: "2025-04", amount_usd: 2999 });
    const starter = await t.request<Invoice[]>(`/api/billing/invoices?project_id=${onStarter}`, { token });
    expect(starter.body.map((i) => [i.period, i.amount_usd, i.plan])).toEqual([
      ["2025-04", 199, "starter"],
      ["2025-03", 199, "starter"],
    ]);
    // Usage moved to April: nothing counted yet.
    const usage = await t.request<{ telemetry_points: number; period_start: string; active_devices: number }>(
      `/api/billing/usage?project_id=${project}`,
      { token },
    );
    expect(usage.body).toMatchObject({
      telemetry_points: 0,
      period_start: "2025-04-01T00:00:00.000Z",
      active_devices: 0,
    });
  });
});

describe("billing: 400, 401, 403, 404", () => {
  let t: TestServer;
  let root: string;
  let project: string;
  let other: string;
  let invoiceId: string;

  beforeAll(async () => {
    t = await TestServer.start();
    root = (await t.admin()).token;
    project = await createProject(t);
    other = await createProject(t);
    const res = await t.request<Invoice[]>(`/api/billing/invoices?project_id=${project}`, { token: root });
    invoiceId = res.body[0]?.id ?? "";
  });
  afterAll(async () => t.stop());

  it("usage counts the points stored by POST /api/telemetry/batch, each once", async () => {
    const fresh = await createProject(t);
    const asset = await createAsset(t, fresh, "Pozo-ingest");
    await createDevice(t, asset);
    await createDevice(t, asset, false);
    const now = t.clock.now().getTime();
    const body = {
      items: [3, 2, 1].map((s) => ({
        asset_id: asset,
        timestamp: new Date(now - s * 1000).toISOString(),
        readings: ["p", "t", "q", "l"].map((variable, i) => ({ variable, value: i + s })),
      })),
    };
    const first = await t.request<{ accepted: number }>("/api/telemetry/batch", { token: root, body });
    expect(first.status, first.text).toBe(201);
    expect(first.body.accepted).toBe(12);
    // A replayed batch stores nothing and counts nothing.
    expect((await t.request("/api/telemetry/batch", { token: root, body })).status).toBe(201);

    const usage = await t.request<Record<string, unknown>>(`/api/billing/usage?project_id=${fresh}`, {
      token: root,
    });
    const month = new Date(now).toISOString().slice(0, 7);
    expect(usage.body).toMatchObject({
      telemetry_points: 12,
      active_devices: 1,
      period_start: `${month}-01T00:00:00.000Z`,
      plan: "starter",
    });
  });

  it("401 on every route without a valid token", async () => {
    const calls: [string, string, unknown][] = [
      ["GET", `/api/billing/usage?project_id=${project}`, undefined],
      ["GET", `/api/billing/invoices?project_id=${project}`, undefined],
      ["GET", "/api/billing/admin/summary", undefined],
      ["PUT", `/api/billing/admin/subscriptions/${project}`, { plan: "starter" }],
      ["PATCH", `/api/billing/invoices/${invoiceId}/status`, { status: "paid" }],
      ["POST", "/api/billing/snapshots", { project_id: project }],
    ];
    for (const [method, path, body] of calls) {
      expectError(await t.request(path, { method, body }), 401, "Unauthorized");
      expectError(await t.request(path, { method, body, token: "bad" }), 401, "Unauthorized");
    }
  });

  it("403 by role: admin on superadmin routes, anh_reader on usage, operador on writes", async () => {
    const admin = (await t.userWithRole("admin")).token;
    expectError(
      await t.request(`/api/billing/admin/subscriptions/${project}`, {
        method: "PUT",
        token: admin,
        body: { plan: "x" },
      }),
      403,
      "Forbidden",
    );
    expectError(await t.request("/api/billing/admin/summary", { token: admin }), 403, "Forbidden");
    const reader = (await t.userWithRole("anh_reader", [project])).token;
    expectError(
      await t.request(`/api/billing/usage?project_id=${project}`, { token: reader }),
      403,
      "Forbidden",
    );
    expectError(
      await t.request(`/api/billing/invoices?project_id=${project}`, { token: reader }),
      403,
      "Forbidden",
    );
    const operador = (await t.userWithRole("operador", [project])).token;
    expect((await t.request(`/api/billing/usage?project_id=${project}`, { token: operador })).status).toBe(
      200,
    );
    expectError(
      await t.request(`/api/billing/invoices/${invoiceId}/status`, {
        method: "PATCH",
        token: operador,
        body: { status: "paid" },
      }),
      403,
      "Forbidden",
    );
    expectError(
      await t.request("/api/billing/snapshots", { token: operador, body: { project_id: project } }),
      403,
      "Forbidden",
    );
  });

  it("404 for unknown projects and invoices, and for projects outside the caller's", async () => {
    const unknown = randomUUID();
    expectError(
      await t.request(`/api/billing/admin/subscriptions/${unknown}`, {
        method: "PUT",
        token: root,
        body: { plan: "starter" },
      }),
      404,
      "NotFound",
    );
    expectError(
      await t.request(`/api/billing/invoices/${unknown}/status`, {
        method: "PATCH",
        token: root,
        body: { status: "paid" },
      }),
      404,
      "NotFound",
    );
    expectError(
      await t.request(`/api/billing/usage?project_id=${unknown}`, { token: root }),
      404,
      "NotFound",
    );
    expectError(
      await t.request(`/api/billing/invoices?project_id=${unknown}`, { token: root }),
      404,
      "NotFound",
    );
    expectError(
      await t.request("/api/billing/snapshots", { token: root, body: { project_id: unknown } }),
      404,
      "NotFound",
    );
    const outsider = (await t.userWithRole("operador", [other])).token;
    expectError(
      await t.request(`/api/billing/usage?project_id=${project}`, { token: outsider }),
      404,
      "NotFound",
    );
    expectError(
      await t.request(`/api/billing/invoices?project_id=${project}`, { token: outsider }),
      404,
      "NotFound",
    );
  });

  it("400 naming each bad field", async () => {
    const put = (id: string, body: unknown) =>
      t.request(`/api/billing/admin/subscriptions/${id}`, { method: "PUT", token: root, body });
    expectError(await put(project, { plan: "gold" }), 400, "ValidationFailed", "plan");
    expectError(await put(project, {}), 400, "ValidationFailed", "plan");
    expectError(await put("nope", { plan: "starter" }), 400, "ValidationFailed", "project_id");
    const patch = (id: string, body: unknown) =>
      t.request(`/api/billing/invoices/${id}/status`, { method: "PATCH", token: root, body });
    expectError(await patch(invoiceId, { status: "refunded" }), 400, "ValidationFailed", "status");
    expectError(await patch(invoiceId, {}), 400, "ValidationFailed", "status");
    expectError(await patch("nope", { status: "paid" }), 400, "ValidationFailed", "id");
    expectError(
      await t.request("/api/billing/usage", { token: root }),
      400,
      "ValidationFailed",
      "project_id",
    );
    expectError(
      await t.request("/api/billing/usage?project_id=1", { token: root }),
      400,
      "ValidationFailed",
      "project_id",
    );
    expectError(
      await t.request("/api/billing/invoices", { token: root }),
      400,
      "ValidationFailed",
      "project_id",
    );
    expectError(
      await t.request("/api/billing/snapshots", { token: root, body: {} }),
      400,
      "ValidationFailed",
      "project_id",
    );
    expectError(
      await t.request("/api/billing/snapshots", { token: root, body: { project_id: "x" } }),
      400,
      "ValidationFailed",
      "project_id",
    );
  });
});
