import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { NewInvoiceRow, SubscriptionRow } from "../../rows.ts";
import type { ContractBackend, StoreUnderTest } from "./backend.ts";
import { at, newProject } from "./fixtures.ts";

const subscription = (projectId: string, startedAt = at()): SubscriptionRow => ({
  projectId,
  plan: "starter",
  startedAt,
  updatedAt: startedAt,
});

const invoice = (projectId: string, period: string, more: Partial<NewInvoiceRow> = {}): NewInvoiceRow => ({
  id: randomUUID(),
  projectId,
  period,
  plan: "professional",
  amountCents: 12_345,
  status: "pending",
  issuedAt: at(),
  ...more,
});

/** BillingStore (server/store/ports/billing-store.ts) on every backend. */
export function billingStoreContract(backend: ContractBackend): void {
  let t: StoreUnderTest;
  let p: string;
  let q: string;
  beforeEach(async () => {
    t = await backend.open();
    p = (await t.store.field.insertProject(newProject("P"))).id;
    q = (await t.store.field.insertProject(newProject("Q"))).id;
  });
  afterEach(async () => {
    await t.close();
  });

  it("starts a subscription once, reads it back, and changes its plan; undefined when there is none", async () => {
    const row = subscription(p);
    expect(await t.store.billing.insertSubscription(row)).toStrictEqual(row);
    expect(await t.store.billing.subscription(p)).toStrictEqual(row);
    expect(await t.store.billing.subscription(q)).toBeUndefined();
    await expect(t.store.billing.insertSubscription(subscription(p, at(5)))).rejects.toThrow();
    const changed = { ...row, plan: "enterprise" as const, updatedAt: at(9) };
    expect(await t.store.billing.updatePlan(p, "enterprise", at(9))).toStrictEqual(changed);
    expect(await t.store.billing.subscription(p)).toStrictEqual(changed);
    expect(await t.store.billing.updatePlan(q, "starter", at(9))).toBeUndefined();
  });

  it("lists subscriptions by start, then project id in byte order", async () => {
    const ids = ["b", "B", "a", "é"];
    for (const id of ids) await t.store.field.insertProject(newProject(id, { id }));
    await t.store.billing.insertSubscription(subscription("b", at(1)));
    await t.store.billing.insertSubscription(subscription("é", at(0)));
    await t.store.billing.insertSubscription(subscription("B", at(1)));
    await t.store.billing.insertSubscription(subscription("a", at(2)));
    expect((await t.store.billing.subscriptions()).map((s) => s.projectId)).toEqual(["é", "B", "b", "a"]);
  });

  it("issues one invoice per project and period, and lists a project's newest period first", async () => {
    const jan = invoice(p, "2026-01");
    expect(await t.store.billing.insertInvoiceUnlessIssued(jan)).toStrictEqual({ ...jan, paidAt: null });
    expect(await t.store.billing.insertInvoiceUnlessIssued(invoice(p, "2026-01"))).toBeUndefined();
    await t.store.billing.insertInvoiceUnlessIssued(invoice(p, "2026-03"));
    await t.store.billing.insertInvoiceUnlessIssued(invoice(p, "2025-12"));
    await t.store.billing.insertInvoiceUnlessIssued(invoice(q, "2026-01"));
    expect((await t.store.billing.invoicesOf(p)).map((i) => i.period)).toEqual([
      "2026-03",
      "2026-01",
      "2025-12",
    ]);
    expect(await t.store.billing.invoicesOf(randomUUID())).toEqual([]);
    expect(await t.store.billing.invoice(jan.id)).toStrictEqual({ ...jan, paidAt: null });
    expect(await t.store.billing.invoice(randomUUID())).toBeUndefined();
    expect(await t.store.billing.hasInvoice(p, "2026-01")).toBe(true);
    expect(await t.store.billing.hasInvoice(p, "2026-02")).toBe(false);
    expect(await t.store.billing.hasInvoice(q, "2026-03")).toBe(false);
  });

  it("issues one invoice when concurrent transactions all try to", async () => {
    await Promise.all(Array.from({ length: 4 }, () => t.store.probe()));
    const issued = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.store.transaction(async (tx) => {
          if (await tx.billing.hasInvoice(p, "2026-04")) return undefined;
          return tx.billing.insertInvoiceUnlessIssued(invoice(p, "2026-04"));
        }),
      ),
    );
    expect(issued.filter((i) => i !== undefined)).toHaveLength(1);
    expect(await t.store.billing.invoicesOf(p)).toHaveLength(1);
  });

  it("sets an invoice's status and paid time; sums the paid ones (0 when none)", async () => {
    expect(await t.store.billing.paidRevenueCents()).toBe(0);
    const a = invoice(p, "2026-01", { amountCents: 2 ** 40 });
    const b = invoice(q, "2026-01", { amountCents: 7 });
    const c = invoice(q, "2026-02", { amountCents: 1000 });
    for (const row of [a, b, c]) await t.store.billing.insertInvoiceUnlessIssued(row);
    expect(await t.store.billing.updateInvoiceStatus(a.id, "paid", at(3))).toStrictEqual({
      ...a,
      status: "paid",
      paidAt: at(3),
    });
    await t.store.billing.updateInvoiceStatus(b.id, "paid", at(4));
    await t.store.billing.updateInvoiceStatus(c.id, "overdue", null);
    expect(await t.store.billing.paidRevenueCents()).toBe(2 ** 40 + 7);
    expect(await t.store.billing.updateInvoiceStatus(randomUUID(), "paid", at())).toBeUndefined();
  });

  it("reads the points counted at ingest for a project and month; 0 when none were", async () => {
    await t.seed.usageCounters([
      { projectId: p, period: "2026-01", telemetryPoints: 2 ** 33 },
      { projectId: p, period: "2026-02", telemetryPoints: 5 },
      { projectId: q, period: "2026-01", telemetryPoints: 9 },
    ]);
    expect(await t.store.billing.telemetryPoints(p, "2026-01")).toBe(2 ** 33);
    expect(await t.store.billing.telemetryPoints(q, "2026-01")).toBe(9);
    expect(await t.store.billing.telemetryPoints(q, "2026-02")).toBe(0);
  });

  it("stores a usage snapshot and returns it as stored", async () => {
    const row = {
      id: randomUUID(),
      projectId: p,
      periodStart: at(),
      periodEnd: at(86_400_000),
      telemetryPoints: 123_456,
      activeDevices: 3,
      plan: null,
      estimatedCostCents: 4_900,
      createdAt: at(1),
    };
    expect(await t.store.billing.insertSnapshot(row)).toStrictEqual(row);
    expect(await t.store.billing.insertSnapshot({ ...row, id: randomUUID(), plan: "starter" })).toMatchObject(
      {
        plan: "starter",
      },
    );
  });
}
