import type { Statement } from "better-sqlite3";
import { lowerBound } from "../../telemetry/blocks.ts";
import { decodeBlock, encodeBlock } from "../../telemetry/codec/block.ts";
import type { Sqlite } from "../client.ts";
import { PackedReads } from "./packed-blocks.ts";

/** Blocks deleted per statement (a 1 Hz block is about 3 pages). */
const BLOCKS_PER_DELETE = 500;

/** Removes packed points older than a cutoff, as raw retention removes raw rows. */
export class PackedRetention {
  readonly #sqlite: Sqlite;
  readonly #reads: PackedReads;
  readonly #deleteOlder: Statement<[number, number, number, number], number>;
  readonly #deleteBlock: Statement<[number, number]>;
  readonly #insertBlock: Statement<[number, number, number, number, Uint8Array]>;

  constructor(sqlite: Sqlite) {
    this.#sqlite = sqlite;
    this.#reads = new PackedReads(sqlite);
    this.#deleteOlder = sqlite
      .prepare<[number, number, number, number], number>(
        `DELETE FROM telemetry_packed WHERE rowid IN (
           SELECT rowid FROM telemetry_packed WHERE series_id = ? AND first_ts < ? AND last_ts < ? LIMIT ?)
         RETURNING count`,
      )
      .pluck();
    this.#deleteBlock = sqlite.prepare("DELETE FROM telemetry_packed WHERE series_id = ? AND first_ts = ?");
    this.#insertBlock = sqlite.prepare(
      "INSERT INTO telemetry_packed (series_id, first_ts, last_ts, count, data) VALUES (?, ?, ?, ?, ?)",
    );
  }

  /**
   * Deletes up to BLOCKS_PER_DELETE blocks of the series that end before `cutoffMs`, in one
   * statement. Returns the points deleted and whether blocks of that kind remain.
   */
  deleteOlderBlocks(seriesId: number, cutoffMs: number): { points: number; more: boolean } {
    const counts = this.#deleteOlder.all(seriesId, cutoffMs, cutoffMs, BLOCKS_PER_DELETE);
    return { points: counts.reduce((a, b) => a + b, 0), more: counts.length === BLOCKS_PER_DELETE };
  }

  /**
   * Cuts the points before `cutoffMs` off the block that spans it, if one does: the block is
   * rewritten with the rest, in one transaction. Returns the points deleted.
   */
  trimSpanningBlock(seriesId: number, cutoffMs: number): number {
    return this.#sqlite
      .transaction(() => {
        const key = this.#reads.atOrBefore.get(seriesId, cutoffMs - 1);
        const data = key && key[1] >= cutoffMs ? this.#reads.data.get(seriesId, key[0]) : undefined;
        if (!key || !data) return 0;
        const { ts, values } = decodeBlock(data);
        const keep = lowerBound(ts, cutoffMs);
        const keptTs = ts.subarray(keep);
        this.#deleteBlock.run(seriesId, key[0]);
        this.#insertBlock.run(
          seriesId,
          keptTs[0] ?? 0,
          key[1],
          keptTs.length,
          encodeBlock(keptTs, values.subarray(keep)),
        );
        return keep;
      })
      .immediate();
  }
}
