import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../testing/free-port.ts";
import { Program } from "./program.ts";

export const INFLUXD = "/usr/bin/influxd";
export const DATABASE = "bench";

export type InfluxOptions = {
  /**
   * Its best case for storage: the cache is snapshotted to TSM and a shard fully compacted 1 s
   * after its last write (defaults 10 min and 4 h). The ingest workload runs the defaults.
   */
  coldCompaction: boolean;
};

/**
 * Debian's influxd (1.6) with its own config, data dirs and free ports, never the system service.
 * Its own monitoring database (_internal) is off: it would write to the measured data dir.
 */
export class InfluxPeer {
  readonly root: string;
  readonly base: string;
  readonly program: Program;

  private constructor(root: string, base: string, program: Program) {
    this.root = root;
    this.base = base;
    this.program = program;
  }

  /** The data directory as a whole (meta, TSM data, WAL): what `du` measures. */
  get dataDir(): string {
    return join(this.root, "var");
  }

  static async start(o: InfluxOptions): Promise<InfluxPeer> {
    const root = mkdtempSync(join(tmpdir(), "caudal-bench-influxdb-"));
    const httpPort = await freePort();
    const rpcPort = await freePort();
    const data = join(root, "var");
    mkdirSync(data);
    const cold = o.coldCompaction
      ? ['  cache-snapshot-write-cold-duration = "1s"', '  compact-full-write-cold-duration = "1s"']
      : [];
    const config = [
      "reporting-enabled = false",
      `bind-address = "127.0.0.1:${rpcPort}"`,
      "[meta]",
      `  dir = "${join(data, "meta")}"`,
      "[data]",
      `  dir = "${join(data, "data")}"`,
      `  wal-dir = "${join(data, "wal")}"`,
      "  query-log-enabled = false",
      ...cold,
      "[http]",
      `  bind-address = "127.0.0.1:${httpPort}"`,
      "  log-enabled = false",
      "[monitor]",
      "  store-enabled = false",
      "[continuous_queries]",
      "  enabled = false",
      "[logging]",
      '  level = "warn"',
      "",
    ].join("\n");
    const file = join(root, "influxdb.conf");
    writeFileSync(file, config);
    const program = new Program(
      "influxd",
      INFLUXD,
      ["-config", file],
      { PATH: process.env.PATH },
      join(root, "influxd.log"),
    );
    const peer = new InfluxPeer(root, `http://127.0.0.1:${httpPort}`, program);
    try {
      await program.waitReady(async () => (await fetch(`${peer.base}/ping`)).status === 204, 30_000);
      await peer.query(`CREATE DATABASE ${DATABASE}`);
    } catch (err) {
      await peer.stop();
      throw err;
    }
    return peer;
  }

  async query(q: string): Promise<unknown> {
    const res = await fetch(`${this.base}/query`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ q }).toString(),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`influxdb ${q}: ${res.status} ${text}`);
    return JSON.parse(text);
  }

  async stop(): Promise<void> {
    await this.program.stop();
    rmSync(this.root, { recursive: true, force: true });
  }
}

export function influxMissing(): string | null {
  return existsSync(INFLUXD) ? null : `${INFLUXD} not found`;
}
