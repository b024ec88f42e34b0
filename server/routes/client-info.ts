import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

/** The peer address and user agent (no proxy headers are trusted). */
export function clientInfo(c: Context): { ip: string | undefined; userAgent: string | undefined } {
  let ip: string | undefined;
  try {
    ip = getConnInfo(c).remote.address;
  } catch {
    ip = undefined;
  }
  return { ip, userAgent: c.req.header("user-agent") };
}
