import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

/*
 * The WAL checkpointer's thread (see checkpointer.ts): its own connection to the server database
 * runs PASSIVE checkpoints, which never block the writer, so the copy into the database file and
 * its fsync happen here rather than inside a commit on the event loop.
 */

type Init = { file: string; intervalMs: number };

const { file, intervalMs }: Init = workerData;
const db = new Database(file);
// Never wait on a lock: a checkpoint that finds the database busy just tries again next time.
db.pragma("busy_timeout = 0");

const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (err) {
    parentPort?.postMessage({ type: "error", message: err instanceof Error ? err.message : String(err) });
  }
}, intervalMs);

parentPort?.on("message", (message: unknown) => {
  if (message !== "stop") return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
