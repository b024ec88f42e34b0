import { eq } from "drizzle-orm";
import type { ServiceContext } from "../../../services/context.ts";
import { sparkplugNodes } from "../../../store/sqlite/schema/index.ts";

/**
 * The next bdSeq of a project's edge node, stored before it is used so that a server restart
 * continues the sequence: 0 the first time, then +1 modulo 256 [tck-id-topics-nbirth-bdseq-increment].
 */
export function nextBdSeq(ctx: ServiceContext, projectId: string): number {
  return ctx.db.transaction((tx) => {
    const row = tx
      .select({ bdSeq: sparkplugNodes.bdSeq })
      .from(sparkplugNodes)
      .where(eq(sparkplugNodes.projectId, projectId))
      .get();
    const bdSeq = row ? (row.bdSeq + 1) % 256 : 0;
    tx.insert(sparkplugNodes)
      .values({ projectId, bdSeq })
      .onConflictDoUpdate({ target: sparkplugNodes.projectId, set: { bdSeq } })
      .run();
    return bdSeq;
  });
}
