import type {
  InvoiceRow,
  NewInvoiceRow,
  NewUsageSnapshotRow,
  SubscriptionRow,
  UsageSnapshotRow,
} from "../rows.ts";

type Plan = SubscriptionRow["plan"];
type InvoiceStatus = InvoiceRow["status"];

/**
 * Subscriptions, invoices, usage counts and usage snapshots. Money is integer US cents; a period
 * is a calendar month in UTC written YYYY-MM. Instants are Dates (epoch milliseconds).
 */
export type BillingStore = {
  /** The project's subscription; undefined when it has none. */
  subscription(projectId: string): Promise<SubscriptionRow | undefined>;
  /**
   * Every subscription, in the order they started: started_at ascending, then project_id in byte
   * order. The monthly invoice pass bills them in this order (its audit entries follow it).
   */
  subscriptions(): Promise<SubscriptionRow[]>;
  /** Starts the project's subscription. Fails (the transaction with it) when it already has one. */
  insertSubscription(row: SubscriptionRow): Promise<SubscriptionRow>;
  /** Sets the plan and updated_at; the row as updated, undefined when there is no subscription. */
  updatePlan(projectId: string, plan: Plan, updatedAt: Date): Promise<SubscriptionRow | undefined>;

  invoice(id: string): Promise<InvoiceRow | undefined>;
  /** The project's invoices, newest period first (one invoice per project and period). */
  invoicesOf(projectId: string): Promise<InvoiceRow[]>;
  /** Whether the project has an invoice for `period` (YYYY-MM), whatever its status. */
  hasInvoice(projectId: string, period: string): Promise<boolean>;
  /**
   * Inserts the invoice unless the project already has one for its period: the new row, or
   * undefined (nothing written, no error) when one exists. A unique (project_id, period) index
   * backs it, so two concurrent transactions never both insert.
   */
  insertInvoiceUnlessIssued(row: NewInvoiceRow): Promise<InvoiceRow | undefined>;
  /** Sets status and paid_at; the row as updated, undefined when there is no such invoice. */
  updateInvoiceStatus(
    id: string,
    status: InvoiceStatus,
    paidAt: Date | null,
  ): Promise<InvoiceRow | undefined>;
  /** The sum of amount_cents over every paid invoice; 0 when there is none. */
  paidRevenueCents(): Promise<number>;

  /**
   * Telemetry points ingested for the project in `period` (YYYY-MM), as counted at ingest (the
   * telemetry writer adds each commit's points in the same transaction); 0 when none were.
   */
  telemetryPoints(projectId: string, period: string): Promise<number>;

  insertSnapshot(row: NewUsageSnapshotRow): Promise<UsageSnapshotRow>;
};
