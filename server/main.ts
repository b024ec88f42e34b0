// caudal-server entry point (`npm run server`). The drizzle-orm loader hook must be registered
// before any module that imports drizzle-orm is even resolved, and static imports are resolved
// before any module body runs: so the server itself is loaded dynamically, after the hook.
import "./boot/drizzle-commonjs.ts";

// `migrate` copies a stopped site from SQLite to PostgreSQL (server/store/migrate/cli.ts).
if (process.argv[2] === "migrate") await import("./store/migrate/cli.ts");
else await import("./cli.ts");
