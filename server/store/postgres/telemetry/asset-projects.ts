import { Client, type Pool } from "pg";

const CHANNEL = "caudal_assets";
const RECONNECT_MS = 1_000;

/**
 * Which project owns an asset, cached for the ingest hot path (projectOfAsset).
 *
 * SQLite's cache is invalidated by temporary triggers that call back into the process from its one
 * connection. PostgreSQL has many connections and maybe several servers, so the triggers of
 * migration 0006 send a notification (channel caudal_assets) when a statement moves or deletes
 * assets, and every server LISTENs on a connection of its own. Answers are cached only while
 * that connection listens: before it is up, after it fails (everything cached is dropped then,
 * notifications may have been missed) and after stop(), every question is a query.
 *
 * A notification arrives after its commit, so another connection's move may be seen a moment
 * late here. That only delays a refusal: the write path checks every series' asset against its
 * project again inside its transaction, with the asset rows locked (write-batch.ts).
 */
export class AssetProjects {
  readonly #pool: Pool;
  readonly #cache = new Map<string, string>();
  /** Bumped by every notification: a lookup that raced one is not cached. */
  #generation = 0;
  #listener: Client | undefined;
  #listening = false;
  #stopped = true;
  #retry: NodeJS.Timeout | undefined;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** Starts listening; resolves once the first LISTEN took (or failed: it is retried). */
  async start(): Promise<void> {
    if (!this.#stopped) return;
    this.#stopped = false;
    await this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retry);
    this.#drop();
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  async projectOf(assetId: string): Promise<string | undefined> {
    const cached = this.#cache.get(assetId);
    if (cached !== undefined) return cached;
    const generation = this.#generation;
    const { rows } = await this.#pool.query<[string]>({
      name: "caudal_asset_project",
      text: "SELECT project_id FROM assets WHERE id = $1",
      values: [assetId],
      rowMode: "array",
    });
    const projectId = rows[0]?.[0];
    if (projectId !== undefined && this.#listening && generation === this.#generation) {
      this.#cache.set(assetId, projectId);
    }
    return projectId;
  }

  async #connect(): Promise<void> {
    const listener = new Client(this.#pool.options);
    listener.on("notification", (message) => {
      if (message.channel !== CHANNEL) return;
      this.#generation++;
      const payload = message.payload ?? "*";
      if (payload === "*") this.#cache.clear();
      else for (const id of payload.split("\n")) this.#cache.delete(id);
    });
    const lost = () => {
      if (this.#listener !== listener) return;
      this.#listener = undefined;
      this.#drop();
      void listener.end().catch(() => undefined);
      this.#schedule();
    };
    listener.on("error", lost);
    listener.on("end", lost);
    this.#listener = listener;
    try {
      await listener.connect();
      await listener.query(`LISTEN ${CHANNEL}`);
      if (this.#listener === listener && !this.#stopped) this.#listening = true;
    } catch {
      lost();
    }
  }

  #schedule(): void {
    if (this.#stopped) return;
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => void this.#connect(), RECONNECT_MS);
    this.#retry.unref();
  }

  #drop(): void {
    this.#listening = false;
    this.#generation++;
    this.#cache.clear();
  }
}
