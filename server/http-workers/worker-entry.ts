// An HTTP worker thread (see pool.ts). As in server/main.ts, the drizzle-orm loader hook is
// registered before any module that imports drizzle-orm is resolved.
import "../boot/drizzle-commonjs.ts";

await import("./worker-thread.ts");
