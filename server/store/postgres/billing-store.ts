import { and, asc, desc, eq, sum } from "drizzle-orm";
import type { BillingStore } from "../ports/billing-store.ts";
import type { InvoiceRow, NewInvoiceRow, NewUsageSnapshotRow, SubscriptionRow } from "../rows.ts";
import { invoices, subscriptions, usageCounters, usageSnapshots } from "./schema/index.ts";
import type { PgSession } from "./session.ts";

/** The one row an INSERT … RETURNING gives back. */
function inserted<T>(rows: T[], what: string): T {
  const [row] = rows;
  if (!row) throw new Error(`INSERT … RETURNING returned no ${what} row`);
  return row;
}

export class PostgresBillingStore implements BillingStore {
  readonly #s: PgSession;

  constructor(session: PgSession) {
    this.#s = session;
  }

  async subscription(projectId: string) {
    const [row] = await this.#s
      .executor()
      .select()
      .from(subscriptions)
      .where(eq(subscriptions.projectId, projectId))
      .limit(1);
    return row;
  }

  async subscriptions() {
    return this.#s
      .executor()
      .select()
      .from(subscriptions)
      .orderBy(asc(subscriptions.startedAt), asc(subscriptions.projectId));
  }

  async insertSubscription(row: SubscriptionRow) {
    return inserted(await this.#s.executor().insert(subscriptions).values(row).returning(), "subscription");
  }

  async updatePlan(projectId: string, plan: SubscriptionRow["plan"], updatedAt: Date) {
    const [row] = await this.#s
      .executor()
      .update(subscriptions)
      .set({ plan, updatedAt })
      .where(eq(subscriptions.projectId, projectId))
      .returning();
    return row;
  }

  async invoice(id: string) {
    const [row] = await this.#s.executor().select().from(invoices).where(eq(invoices.id, id)).limit(1);
    return row;
  }

  async invoicesOf(projectId: string) {
    return this.#s
      .executor()
      .select()
      .from(invoices)
      .where(eq(invoices.projectId, projectId))
      .orderBy(desc(invoices.period));
  }

  async hasInvoice(projectId: string, period: string) {
    const [row] = await this.#s
      .executor()
      .select({ id: invoices.id })
      .from(invoices)
      .where(and(eq(invoices.projectId, projectId), eq(invoices.period, period)))
      .limit(1);
    return row !== undefined;
  }

  async insertInvoiceUnlessIssued(row: NewInvoiceRow) {
    // A concurrent insert of the same (project, period) waits on the unique index until the other
    // transaction ends, then inserts nothing (committed) or its own row (rolled back).
    const [stored] = await this.#s
      .executor()
      .insert(invoices)
      .values(row)
      .onConflictDoNothing({ target: [invoices.projectId, invoices.period] })
      .returning();
    return stored;
  }

  async updateInvoiceStatus(id: string, status: InvoiceRow["status"], paidAt: Date | null) {
    const [row] = await this.#s
      .executor()
      .update(invoices)
      .set({ status, paidAt })
      .where(eq(invoices.id, id))
      .returning();
    return row;
  }

  async paidRevenueCents() {
    // SUM of a bigint is numeric, which the driver hands over as text.
    const [row] = await this.#s
      .executor()
      .select({ cents: sum(invoices.amountCents) })
      .from(invoices)
      .where(eq(invoices.status, "paid"));
    return Number(row?.cents ?? 0);
  }

  async telemetryPoints(projectId: string, period: string) {
    // usage_counters is written by the telemetry writer's commits, not here.
    const [row] = await this.#s
      .executor()
      .select({ points: usageCounters.telemetryPoints })
      .from(usageCounters)
      .where(and(eq(usageCounters.projectId, projectId), eq(usageCounters.period, period)))
      .limit(1);
    return row?.points ?? 0;
  }

  async insertSnapshot(row: NewUsageSnapshotRow) {
    return inserted(
      await this.#s.executor().insert(usageSnapshots).values(row).returning(),
      "usage snapshot",
    );
  }
}
