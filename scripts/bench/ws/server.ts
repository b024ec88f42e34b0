// The bench's server process, loaded like server/main.ts: the drizzle-orm hook first, then the rest.
import "../../../server/boot/drizzle-commonjs.ts";

await import("./server-process.ts");
