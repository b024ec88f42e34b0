import type { AuditEntry } from "../audit-chain.ts";
import type { AuditRow } from "../rows.ts";

/** Which entries to list; every condition given must hold. */
export type AuditFilter = {
  /** Only entries of these projects; undefined: every entry, those of no project included. */
  projectIds?: readonly string[];
  /** On the entry's `at`: from inclusive, to exclusive. */
  from?: Date;
  to?: Date;
  entity?: string;
  entityId?: string;
  /** Only entries older than this seq (paging backwards). */
  beforeSeq?: number;
  limit: number;
};

/** An entry as stored, its before/after the exact JSON text that was hashed (null when absent). */
export type StoredAuditEntry = {
  seq: number;
  id: string;
  at: Date;
  userId: string | null;
  projectId: string | null;
  entity: string;
  entityId: string;
  action: string;
  before: string | null;
  after: string | null;
  prevHash: string;
  hash: string;
};

/** The hash-chained audit log. */
export type AuditStore = {
  /**
   * Appends `entry` after the newest one, chained to its hash. Call it with the ports of the
   * transaction that makes the change, so neither lands without the other.
   */
  append(entry: AuditEntry): Promise<void>;
  /** Entries matching `filter`, newest (highest seq) first, at most `filter.limit`. */
  list(filter: AuditFilter): Promise<AuditRow[]>;
  /**
   * The highest seq ever issued, even when that entry is gone (0 when none): a rolled-back append
   * issues none, so any seq up to it that is missing was removed.
   */
  highestIssuedSeq(): Promise<number>;
  /** Up to `limit` stored entries with afterSeq < seq <= upToSeq, in seq order. */
  chainPage(afterSeq: number, upToSeq: number, limit: number): Promise<StoredAuditEntry[]>;
};
