import { createHash, randomUUID } from "node:crypto";

/** One change for the hash-chained audit log (API MPMS 21.1 §5: configuration and event logs). */
export type AuditEntry = {
  at: Date;
  userId: string | null;
  projectId: string | null;
  entity: string;
  entityId: string;
  action: "create" | "update" | "delete";
  before: unknown;
  after: unknown;
};

/** The canonical text an entry's hash covers: every field in a fixed order, then the previous hash. */
export function auditHashInput(e: {
  id: string;
  at: Date;
  userId: string | null;
  projectId: string | null;
  entity: string;
  entityId: string;
  action: string;
  before: unknown;
  after: unknown;
  prevHash: string;
}): string {
  return JSON.stringify([
    e.id,
    e.at.toISOString(),
    e.userId,
    e.projectId,
    e.entity,
    e.entityId,
    e.action,
    e.before ?? null,
    e.after ?? null,
    e.prevHash,
  ]);
}

export function auditHash(input: string): string {
  return createHash("sha256").update(input).digest("hex");
}

/**
 * The row that appends `entry` after the entry whose hash is `prevHash` ("" for the first): a new
 * id and the hash over both. Every adapter appends through it, so the backends chain alike.
 */
export function chainAuditEntry(entry: AuditEntry, prevHash: string) {
  const row = {
    id: randomUUID(),
    ...entry,
    before: entry.before ?? null,
    after: entry.after ?? null,
    prevHash,
  };
  return { ...row, hash: auditHash(auditHashInput(row)) };
}
