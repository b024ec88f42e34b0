import { and, asc, desc, eq, sum } from "drizzle-orm";
import type { BillingStore } from "../ports/billing-store.ts";
import type { InvoiceRow, NewInvoiceRow, NewUsageSnapshotRow, SubscriptionRow } from "../rows.ts";
import { invoices, subscriptions, usageCounters, usageSnapshots } from "./schema/index.ts";
import type { SqliteSession } from "./session.ts";

export class SqliteBillingStore implements BillingStore {
  readonly #s: SqliteSession;

  constructor(session: SqliteSession) {
    this.#s = session;
  }

  subscription(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db.select().from(subscriptions).where(eq(subscriptions.projectId, projectId)).get(),
    );
  }

  subscriptions() {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(subscriptions)
        .orderBy(asc(subscriptions.startedAt), asc(subscriptions.projectId))
        .all(),
    );
  }

  insertSubscription(row: SubscriptionRow) {
    return this.#s.gate.run(() => this.#s.db.insert(subscriptions).values(row).returning().get());
  }

  updatePlan(projectId: string, plan: SubscriptionRow["plan"], updatedAt: Date) {
    return this.#s.gate.run(() =>
      this.#s.db
        .update(subscriptions)
        .set({ plan, updatedAt })
        .where(eq(subscriptions.projectId, projectId))
        .returning()
        .get(),
    );
  }

  invoice(id: string) {
    return this.#s.gate.run(() => this.#s.db.select().from(invoices).where(eq(invoices.id, id)).get());
  }

  invoicesOf(projectId: string) {
    return this.#s.gate.run(() =>
      this.#s.db
        .select()
        .from(invoices)
        .where(eq(invoices.projectId, projectId))
        .orderBy(desc(invoices.period))
        .all(),
    );
  }

  hasInvoice(projectId: string, period: string) {
    return this.#s.gate.run(
      () =>
        this.#s.db
          .select({ id: invoices.id })
          .from(invoices)
          .where(and(eq(invoices.projectId, projectId), eq(invoices.period, period)))
          .get() !== undefined,
    );
  }

  insertInvoiceUnlessIssued(row: NewInvoiceRow) {
    return this.#s.gate.run(() =>
      this.#s.db
        .insert(invoices)
        .values(row)
        .onConflictDoNothing({ target: [invoices.projectId, invoices.period] })
        .returning()
        .get(),
    );
  }

  updateInvoiceStatus(id: string, status: InvoiceRow["status"], paidAt: Date | null) {
    return this.#s.gate.run(() =>
      this.#s.db.update(invoices).set({ status, paidAt }).where(eq(invoices.id, id)).returning().get(),
    );
  }

  paidRevenueCents() {
    return this.#s.gate.run(() => {
      const row = this.#s.db
        .select({ cents: sum(invoices.amountCents) })
        .from(invoices)
        .where(eq(invoices.status, "paid"))
        .get();
      return Number(row?.cents ?? 0);
    });
  }

  telemetryPoints(projectId: string, period: string) {
    // usage_counters is written by the telemetry writer's group commit (statements.ts), not here.
    return this.#s.gate.run(
      () =>
        this.#s.db
          .select({ points: usageCounters.telemetryPoints })
          .from(usageCounters)
          .where(and(eq(usageCounters.projectId, projectId), eq(usageCounters.period, period)))
          .get()?.points ?? 0,
    );
  }

  insertSnapshot(row: NewUsageSnapshotRow) {
    return this.#s.gate.run(() => this.#s.db.insert(usageSnapshots).values(row).returning().get());
  }
}
