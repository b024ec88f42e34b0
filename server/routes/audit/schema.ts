import { z } from "@hono/zod-openapi";
import { queryTextFilter } from "../../http/query-text.ts";
import { AUDIT_LIST_DEFAULT, AUDIT_LIST_MAX } from "../../services/audit/list-audit.ts";
import { instantField, uuidField } from "../records/fields.ts";

export const AUDIT_TAG = "Audit";

export const auditListQuery = z.object({
  project_id: uuidField()
    .optional()
    .openapi({ description: "One project; required in effect for supervisors (else their projects)" }),
  from: instantField().optional().openapi({ description: "Inclusive lower bound on `at`" }),
  to: instantField().optional().openapi({ description: "Exclusive upper bound on `at`" }),
  entity: queryTextFilter(64)
    .optional()
    .openapi({ description: "Entity kind, e.g. movement, asset, user", example: "movement" }),
  entity_id: queryTextFilter(200)
    .optional()
    .openapi({ description: "One entity's history (its configuration log)" }),
  before_seq: z.coerce
    .number("must be a number")
    .int("must be an integer")
    .min(1, "must be 1 or more")
    .optional()
    .openapi({ description: "Next page: pass the smallest seq of the previous page" }),
  limit: z.coerce
    .number("must be a number")
    .int("must be an integer")
    .min(1, `must be between 1 and ${AUDIT_LIST_MAX}`)
    .max(AUDIT_LIST_MAX, `must be between 1 and ${AUDIT_LIST_MAX}`)
    .optional()
    .openapi({ description: `Most entries returned (default ${AUDIT_LIST_DEFAULT})` }),
});

const jsonValue = z
  .unknown()
  .openapi({ description: "The entity as it was (before) or became (after); null if none" });

export const auditEntrySchema = z
  .object({
    seq: z.number().int().openapi({ description: "Position in the chain, from 1, without gaps" }),
    id: z.uuid(),
    at: z.iso.datetime(),
    user_id: z.uuid().nullable().openapi({ description: "Who made the change; null for the system" }),
    project_id: z.uuid().nullable().openapi({ description: "Null for entries outside any project (users)" }),
    entity: z.string(),
    entity_id: z.string(),
    action: z.enum(["create", "update", "delete"]),
    before: jsonValue,
    after: jsonValue,
    prev_hash: z.string().openapi({ description: "SHA-256 hex of the previous entry; empty for the first" }),
    hash: z.string().openapi({ description: "SHA-256 hex over this entry's fields and prev_hash" }),
  })
  .openapi("AuditEntry");

export const auditVerification = z
  .object({
    valid: z.boolean(),
    entries: z.number().int().openapi({ description: "Entries found intact (before the break, if any)" }),
    head: z
      .object({ seq: z.number().int(), hash: z.string() })
      .nullable()
      .optional()
      .openapi({
        description:
          "When valid: the newest entry. Keep its seq and hash outside the server; later, the entry " +
          "at that seq (GET /api/audit?before_seq=seq+1&limit=1) must still carry that hash, which " +
          "shows nothing up to it was rewritten, even by someone who recomputed the whole chain.",
      }),
    broken_at: z
      .object({
        seq: z.number().int(),
        id: z.uuid().nullable().openapi({ description: "Null when the newest entries are missing" }),
        reason: z.enum(["hash mismatch", "prev_hash mismatch", "seq gap", "truncated"]),
      })
      .optional()
      .openapi({ description: "When not valid: the first entry that fails" }),
  })
  .openapi("AuditVerification");
