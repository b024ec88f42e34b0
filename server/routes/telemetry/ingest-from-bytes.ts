import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../http/env.ts";
import { parseIngestColumns } from "./ingest-columns.ts";
import type { ColumnsWriter, IngestShape } from "./ingest-writer.ts";

/**
 * Content types that zod-openapi's media type gate lets through and hono's JSON validator parses
 * (UTF-8, as it always decodes); any other spelling takes the validators' path.
 */
const PLAIN_JSON = /^application\/json(; ?charset=utf-8)?$/i;

/**
 * Route middleware between the guard and the body validators of the ingest routes: reads the
 * body's bytes and, when the byte parser takes them, writes the columns and answers as the
 * route's handler does, so no JSON.parse and no object per reading. Anything it declines goes on
 * to the validators unchanged: they read the same bytes from hono's body cache (a failed read
 * included, which they answer as today).
 */
export function ingestFromBytes(shape: IngestShape, write: ColumnsWriter): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const type = c.req.header("content-type");
    if (type === undefined || !PLAIN_JSON.test(type)) return next();
    let body: ArrayBuffer;
    try {
      body = await c.req.arrayBuffer();
    } catch {
      return next();
    }
    const columns = parseIngestColumns(new Uint8Array(body), shape);
    if (columns === undefined) return next();
    const result = await write(c.get("auth"), columns, shape);
    // `expired` cannot occur here: such timestamps were refused with a 400.
    return c.json({ accepted: result.accepted, duplicates: result.duplicates }, 201);
  };
}
