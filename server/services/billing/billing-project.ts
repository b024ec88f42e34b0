import { eq } from "drizzle-orm";
import { notFound } from "../../errors.ts";
import type { DbOrTx } from "../../store/sqlite/append-audit.ts";
import { projects } from "../../store/sqlite/schema/index.ts";
import { type AuthContext, canSeeProject } from "../auth/auth-context.ts";

/** 404 unless the project exists and is one of the caller's (existence is not revealed). */
export function billingProject(db: DbOrTx, auth: AuthContext, projectId: string) {
  const row = db.select().from(projects).where(eq(projects.id, projectId)).get();
  if (!row || !canSeeProject(auth, projectId)) throw notFound("project");
  return row;
}
