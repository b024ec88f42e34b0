import type { AuditEntry } from "../audit-chain.ts";
import type { AuditStore } from "../ports/audit-store.ts";
import { appendAudit } from "./append-audit.ts";
import type { SqliteSession } from "./session.ts";

export class SqliteAuditStore implements AuditStore {
  readonly #s: SqliteSession;

  constructor(session: SqliteSession) {
    this.#s = session;
  }

  append(entry: AuditEntry): Promise<void> {
    // Outside a transaction it is still atomic: one connection, read and insert in one run.
    return this.#s.gate.run(() => this.#s.db.transaction((tx) => appendAudit(tx, entry)));
  }
}
