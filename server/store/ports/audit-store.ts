import type { AuditEntry } from "../audit-chain.ts";

/** The hash-chained audit log. */
export type AuditStore = {
  /**
   * Appends `entry` after the newest one, chained to its hash. Call it with the ports of the
   * transaction that makes the change, so neither lands without the other.
   */
  append(entry: AuditEntry): Promise<void>;
};
