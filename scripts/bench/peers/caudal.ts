import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { withServerNodeOptions } from "../../../server/node-options.ts";
import { freePort } from "../../testing/free-port.ts";
import type { BenchBackend, BenchDatabase } from "../backend.ts";
import { Program } from "./program.ts";

const MAIN = fileURLToPath(new URL("../../../server/main.ts", import.meta.url));
const OPERADOR = { email: "integration@caudal.test", password: "bench-password-2" };

/**
 * The real Caudal server, `node server/main.ts` in its own process with a fresh DATA_DIR, as an
 * operator runs it (NODE_ENV=production, LOG_LEVEL=warn), and set up only through its public API:
 * the bench measures whatever the tree's server does, whatever its shape inside.
 */
export class CaudalSide {
  readonly root: string;
  readonly base: string;
  readonly mqttUrl: string;
  readonly program: Program;
  #superadmin = "";

  readonly #database: BenchDatabase | undefined;

  private constructor(
    root: string,
    base: string,
    mqttUrl: string,
    program: Program,
    database: BenchDatabase | undefined,
  ) {
    this.#database = database;
    this.root = root;
    this.base = base;
    this.mqttUrl = mqttUrl;
    this.program = program;
  }

  get dataDir(): string {
    return join(this.root, "data");
  }

  /**
   * `extraEnv`: more server settings (`--caudal-env KEY=VALUE`), e.g. a storage engine's tuning;
   * `backend`: the engine (`--backend`), a fresh database of its own on PostgreSQL.
   */
  static async start(extraEnv: Record<string, string>, backend?: BenchBackend): Promise<CaudalSide> {
    const root = mkdtempSync(join(tmpdir(), "caudal-bench-peers-"));
    const database = await backend?.database();
    mkdirSync(join(root, "data"));
    const port = await freePort();
    const mqttPort = await freePort();
    const env = {
      PATH: process.env.PATH,
      HOME: root,
      PORT: String(port),
      MQTT_PORT: String(mqttPort),
      HOST: "127.0.0.1",
      DATA_DIR: join(root, "data"),
      NODE_ENV: "production",
      LOG_LEVEL: "warn",
      TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      ...database?.env,
      ...extraEnv,
    };
    // As production starts it (server/node-options.ts); a --caudal-env NODE_OPTIONS comes after.
    const program = new Program(
      "caudal-server",
      process.execPath,
      [MAIN],
      withServerNodeOptions(env),
      join(root, "server.log"),
    );
    const side = new CaudalSide(
      root,
      `http://127.0.0.1:${port}`,
      `mqtt://127.0.0.1:${mqttPort}`,
      program,
      database,
    );
    try {
      // "ok" only once the database answers and the broker listens.
      await program.waitReady(async () => {
        const res = await fetch(`${side.base}/health`);
        return res.status === 200 && ((await res.json()) as { status: string }).status === "ok";
      }, 60_000);
      const { token } = await side.call<{ token: string }>("/api/auth/setup/register", {
        email: "bench@caudal.test",
        name: "Bench",
        password: "bench-password-1",
      });
      side.#superadmin = token;
    } catch (err) {
      await side.stop();
      throw err;
    }
    return side;
  }

  async call<T>(path: string, body: unknown, token?: string, method = "POST"): Promise<T> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`caudal ${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }

  /** A project with one asset: the project's id and the asset's. */
  async project(name: string): Promise<{ projectId: string; assetId: string }> {
    const { id: projectId } = await this.call<{ id: string }>(
      "/api/edge/projects",
      { name },
      this.#superadmin,
    );
    const { id: assetId } = await this.call<{ id: string }>(
      "/api/edge/assets",
      { project_id: projectId, name: `${name} well`, asset_type: "well" },
      this.#superadmin,
    );
    return { projectId, assetId };
  }

  /** The project's agent token: MQTT username `agent:<project id>`, this as the password. */
  async agentToken(projectId: string): Promise<string> {
    const issued = await this.call<{ agent_token: string }>(
      `/api/edge/projects/${projectId}/agent-token`,
      undefined,
      this.#superadmin,
    );
    return issued.agent_token;
  }

  /** An operador of these projects (the role a field integration uses), created once. */
  async addOperador(projectIds: string[]): Promise<void> {
    const user = await this.call<{ id: string }>(
      "/api/admin/users",
      { ...OPERADOR, name: "Integration", role: "operador" },
      this.#superadmin,
    );
    await this.call(
      `/api/admin/users/${user.id}/projects`,
      { project_ids: projectIds },
      this.#superadmin,
      "PUT",
    );
  }

  /** A fresh access token of the operador (they last 15 minutes). */
  async operadorToken(): Promise<string> {
    return (await this.call<{ token: string }>("/api/auth/login", OPERADOR)).token;
  }

  async stop(): Promise<void> {
    await this.program.stop();
    rmSync(this.root, { recursive: true, force: true });
    await this.#database?.drop();
  }
}
