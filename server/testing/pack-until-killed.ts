import { openDatabase } from "../store/sqlite/client.ts";
import { YoungBlocks } from "../store/sqlite/telemetry/compact-blocks.ts";
import { TelemetryPacker } from "../store/sqlite/telemetry/packer.ts";
import { RollupTracker } from "../store/sqlite/telemetry/rollup-tracker.ts";

/*
 * A process that starts packing a server database and is killed (SIGKILL) in the middle of its
 * first packing transaction, right after the first write to `table` (telemetry_packed: a block
 * written, its raw rows not yet deleted; telemetry_raw: the rows deleted too, not yet committed).
 * A one-page cache makes SQLite spill the transaction's pages into the WAL before the kill, as a
 * large transaction would.
 *
 *   node pack-until-killed.ts <database file> <cutoff ms> <telemetry_packed | telemetry_raw>
 */
const [file, cutoff, table] = process.argv.slice(2);
if (!file || !cutoff || (table !== "telemetry_packed" && table !== "telemetry_raw")) {
  process.stderr.write(
    "usage: pack-until-killed.ts <database> <cutoff ms> <telemetry_packed|telemetry_raw>\n",
  );
  process.exit(2);
}
const { sqlite } = openDatabase(file);
sqlite.pragma("cache_size = 1");
sqlite.function("die", () => {
  process.kill(process.pid, "SIGKILL");
  return 0;
});
const event = table === "telemetry_packed" ? "INSERT" : "DELETE";
sqlite.exec(`CREATE TEMP TRIGGER die_mid_pack AFTER ${event} ON main.${table} BEGIN SELECT die(); END`);
await new TelemetryPacker(sqlite, new RollupTracker(sqlite), new YoungBlocks()).pack(
  Number(cutoff),
  () => false,
);
process.stderr.write("packing finished without being killed\n");
process.exit(3);
