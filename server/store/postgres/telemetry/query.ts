import { sql } from "drizzle-orm";
import type { Pool, PoolClient } from "pg";
import type { PgSession } from "../session.ts";

/**
 * Runs one SQL statement with $n parameters and answers its rows as arrays, columns in SELECT
 * order. The telemetry paths speak plain SQL: bulk statements over unnest() arrays, and reads
 * whose rows are numbers, not objects (bigint columns are cast to float8 where a number is read).
 */
export type Query = <R extends unknown[] = unknown[]>(
  text: string,
  values?: readonly unknown[],
) => Promise<R[]>;

/** Statements on one connection (a transaction the telemetry writer holds). */
export function clientQuery(client: PoolClient): Query {
  return async <R extends unknown[]>(text: string, values: readonly unknown[] = []) =>
    (await client.query<R>({ text, values: [...values], rowMode: "array" })).rows;
}

/**
 * Statements where the session runs them: inside its transaction when it has one (through
 * drizzle, the text cut at its $n parameters), else on any free connection of the pool.
 */
export function sessionQuery(session: PgSession, pool: Pool): Query {
  return async <R extends unknown[]>(text: string, values: readonly unknown[] = []) => {
    if (!session.inTransaction()) {
      return (await pool.query<R>({ text, values: [...values], rowMode: "array" })).rows;
    }
    const parts = text.split(/\$\d+/);
    const order = [...text.matchAll(/\$(\d+)/g)].map((m) => values[Number(m[1]) - 1]);
    const strings = Object.assign([...parts], { raw: [...parts] }) as unknown as TemplateStringsArray;
    const result = await session.executor().execute(sql(strings, ...order));
    return result.rows.map((row) => Object.values(row) as R);
  };
}
