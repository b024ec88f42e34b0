import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../../testing/harness.ts";

type Doc = {
  paths: Record<
    string,
    Record<string, { security?: unknown; tags?: string[]; responses: Record<string, unknown> }>
  >;
  components: { schemas: Record<string, unknown> };
};

describe("OpenAPI document: reports, billing and dashboard", () => {
  let t: TestServer;
  let doc: Doc;
  beforeAll(async () => {
    t = await TestServer.start();
    const res = await t.request<Doc>("/docs/openapi.json");
    expect(res.status).toBe(200);
    doc = res.body;
  });
  afterAll(async () => t.stop());

  it("declares every operation with a tag, bearer security and its error responses", () => {
    const ops: [string, string, string[]][] = [
      ["/api/anh/reports", "get", ["200", "401", "403"]],
      ["/api/anh/reports/generate", "post", ["201", "400", "401", "403", "404", "409"]],
      ["/api/anh/reports/{id}", "get", ["200", "401", "404"]],
      ["/api/anh/reports/{id}/download", "get", ["200", "401", "404", "409"]],
      ["/api/anh/reports/{id}/hash", "get", ["200", "401", "404"]],
      ["/api/anh/reports/{id}/submit", "post", ["200", "401", "403", "404", "409"]],
      ["/api/billing/usage", "get", ["200", "400", "401", "403", "404"]],
      ["/api/billing/invoices", "get", ["200", "401"]],
      ["/api/billing/invoices/{id}/status", "patch", ["200", "400", "401", "403", "404"]],
      ["/api/billing/admin/summary", "get", ["200", "401", "403"]],
      ["/api/billing/admin/subscriptions/{project_id}", "put", ["200", "400", "401", "403", "404"]],
      ["/api/billing/snapshots", "post", ["201", "400", "401", "404"]],
      ["/api/dashboard/summary", "get", ["200", "401"]],
    ];
    for (const [path, method, statuses] of ops) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op?.security).toEqual([{ bearerAuth: [] }]);
      expect(op?.tags?.length).toBe(1);
      for (const s of statuses) expect(op?.responses, `${method} ${path} ${s}`).toHaveProperty(s);
    }
  });

  it("publishes the report content and the billing shapes as components", () => {
    for (const name of [
      "ANHReport",
      "ANHReportContent",
      "ANHReportWithContent",
      "GenerateANHReportRequest",
      "BillingUsage",
      "Invoice",
      "BillingSummary",
      "Subscription",
      "DashboardSummary",
    ]) {
      expect(doc.components.schemas, name).toHaveProperty(name);
    }
  });
});
