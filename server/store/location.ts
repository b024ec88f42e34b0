import { join } from "node:path";

/** Where a server's data lives: which engine, and where in it. */
export type StoreLocation = { engine: "sqlite"; file: string } | { engine: "postgres"; url: string };

/**
 * DATABASE_URL read: unset (or empty), SQLite in DATA_DIR/caudal.db, the embedded default;
 * `sqlite:<file>`, that SQLite file (relative to the working directory); `postgres://…` or
 * `postgresql://…`, PostgreSQL. The config schema refused anything else.
 */
export function storeLocation(config: {
  DATA_DIR: string;
  DATABASE_URL?: string | undefined;
}): StoreLocation {
  const url = config.DATABASE_URL;
  if (!url) return { engine: "sqlite", file: join(config.DATA_DIR, "caudal.db") };
  if (url.startsWith("sqlite:")) return { engine: "sqlite", file: url.slice("sqlite:".length) };
  return { engine: "postgres", url };
}

/** The location for logs and /health: a PostgreSQL URL without its password or query. */
export function describeLocation(location: StoreLocation): string {
  if (location.engine === "sqlite") return `sqlite:${location.file}`;
  try {
    const u = new URL(location.url);
    const user = u.username ? `${decodeURIComponent(u.username)}@` : "";
    return `${u.protocol}//${user}${u.host}${u.pathname}`;
  } catch {
    return "postgres://(unparsable URL)";
  }
}
