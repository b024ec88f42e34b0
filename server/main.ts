// caudal-server entry point (`npm run server`). The drizzle-orm loader hook must be registered
// before any module that imports drizzle-orm is even resolved, and static imports are resolved
// before any module body runs: so the server itself is loaded dynamically, after the hook.
import "./boot/drizzle-commonjs.ts";

await import("./cli.ts");
