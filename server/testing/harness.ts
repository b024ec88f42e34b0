import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Role } from "../../shared/roles.ts";
import { type ServerConfig, serverConfigSchema } from "../config.ts";
import { createLogger, type Logger } from "../logger.ts";
import { CaudalServer, type CaudalServerOptions } from "../server.ts";
import type { Clock } from "../services/context.ts";
import { openTestDatabase, type TestDatabase } from "./test-database.ts";

export type ApiResponse<T = unknown> = { status: number; headers: Headers; body: T; text: string };

export type RequestOptions = {
  method?: string;
  body?: unknown;
  /** Sent verbatim (for malformed JSON tests). */
  rawBody?: string;
  token?: string;
  headers?: Record<string, string>;
};

/** A mutable clock for tests that need to move time (lockouts, expiry). */
export class TestClock implements Clock {
  /** Shared, so that HTTP worker threads move with it. */
  readonly offsetMs = new BigInt64Array(new SharedArrayBuffer(8));
  now(): Date {
    return new Date(Date.now() + Number(Atomics.load(this.offsetMs, 0)));
  }
  advance(ms: number): void {
    Atomics.add(this.offsetMs, 0, BigInt(Math.round(ms)));
  }
}

/**
 * A real caudal-server on a random port with its own DATA_DIR. Each test file starts one;
 * tests create their own users and projects and never wipe shared tables.
 */
export class TestServer {
  #server: CaudalServer;
  readonly dataDir: string;
  readonly config: ServerConfig;
  readonly clock = new TestClock();
  readonly #logger: Logger;
  readonly #agentBuildCommand: CaudalServerOptions["agentBuildCommand"];
  readonly #autoDeployDelayMs: number | undefined;
  /** Its PostgreSQL database on PostgreSQL runs (test-database.ts); DATA_DIR holds SQLite's. */
  readonly #database: TestDatabase | undefined;
  #admin: { token: string; email: string; password: string } | undefined;
  #adminFreshUntil = 0;

  private constructor(
    overrides: Partial<Record<keyof ServerConfig, string>>,
    logger: Logger,
    database: TestDatabase | undefined,
    agentBuildCommand?: CaudalServerOptions["agentBuildCommand"],
    autoDeployDelayMs?: number,
  ) {
    this.#database = database;
    this.#agentBuildCommand = agentBuildCommand;
    this.#autoDeployDelayMs = autoDeployDelayMs;
    this.dataDir = mkdtempSync(join(tmpdir(), "caudal-test-"));
    this.config = serverConfigSchema.parse({
      PORT: "0",
      HOST: "127.0.0.1",
      MQTT_PORT: "0",
      DATA_DIR: this.dataDir,
      NODE_ENV: "test",
      LOG_LEVEL: "silent",
      TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      LOGIN_RATE_LIMIT: "1000",
      LOGIN_RATE_LIMIT_PER_ADDRESS: "100000",
      ENROLL_RATE_LIMIT: "100000",
      // Its own (empty) folder, never the repository's build: a test that serves agent binaries
      // writes them there (writeAgentDistFixture) or names builtAgentBinaries()'s folder.
      AGENT_DIST_DIR: join(this.dataDir, "agent-dist"),
      // No test server builds real executables at start (minutes of CPU): the tests of that build
      // turn it on and substitute a cheap build command (agent-build.test.ts).
      AGENT_BUILD: "off",
      // Tests count and compare raw rows of readings hours old: the packing job stays out of their
      // way unless a test asks for it (TELEMETRY_PACK_AFTER_HOURS: "0").
      TELEMETRY_PACK_AFTER_HOURS: "9000",
      // Tests run on the main thread alone unless HTTP_WORKERS asks for worker threads (the
      // route, WebSocket and broker tests are run both ways).
      HTTP_WORKERS: process.env.HTTP_WORKERS ?? "0",
      ...overrides,
    });
    this.#logger = logger;
    this.#server = new CaudalServer({
      config: this.config,
      logger,
      clock: this.clock,
      agentBuildCommand,
      autoDeployDelayMs,
    });
  }

  /** The running CaudalServer (a new instance after restart()). */
  get server(): CaudalServer {
    return this.#server;
  }

  /**
   * `options.logger` captures the server's log lines (e.g. `createLogger("info", (l) => lines.push(l))`);
   * `options.autoDeployDelayMs` holds automatic deployments back (a test comparing answers over seconds).
   */
  static async start(
    overrides: Partial<Record<keyof ServerConfig, string>> = {},
    options: {
      logger?: Logger;
      agentBuildCommand?: CaudalServerOptions["agentBuildCommand"];
      autoDeployDelayMs?: number;
    } = {},
  ): Promise<TestServer> {
    // On PostgreSQL runs, a database of its own (unless the test names one).
    const database = overrides.DATABASE_URL === undefined ? await openTestDatabase() : undefined;
    const t = new TestServer(
      database ? { DATABASE_URL: database.url, ...overrides } : overrides,
      options.logger ?? createLogger("silent"),
      database,
      options.agentBuildCommand,
      options.autoDeployDelayMs,
    );
    try {
      await t.server.start();
    } catch (error) {
      await t.#cleanUp();
      throw error;
    }
    return t;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.#cleanUp();
  }

  async #cleanUp(): Promise<void> {
    rmSync(this.dataDir, { recursive: true, force: true });
    await this.#database?.drop();
  }

  /**
   * Stops the server (keeping DATA_DIR), runs `whileDown`, and starts a new CaudalServer on the same
   * data dir, clock and HTTP/MQTT ports, so agents and clients reconnect to the same addresses.
   */
  async restart(whileDown?: () => Promise<void>): Promise<void> {
    const ports = { PORT: this.#server.port, MQTT_PORT: this.#server.broker.port };
    await this.#server.stop();
    await whileDown?.();
    this.#server = new CaudalServer({
      config: { ...this.config, ...ports },
      logger: this.#logger,
      clock: this.clock,
      agentBuildCommand: this.#agentBuildCommand,
      autoDeployDelayMs: this.#autoDeployDelayMs,
    });
    await this.#server.start();
  }

  async request<T = unknown>(path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers["content-type"] ??= "application/json";
    const res = await fetch(`${this.baseUrl}${path}`, {
      method: options.method ?? (body === undefined ? "GET" : "POST"),
      headers,
      body,
    });
    const text = await res.text();
    let parsed: unknown = text;
    if (res.headers.get("content-type")?.includes("application/json") && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  /** The superadmin created through /api/auth/setup/register (once per server). */
  async admin(): Promise<{ token: string; email: string; password: string }> {
    const now = this.clock.now().getTime();
    if (this.#admin && now < this.#adminFreshUntil) return this.#admin;
    const email = "root@caudal.test";
    const password = "correct horse battery";
    if (this.#admin) {
      // Tests that move the clock past the 15-minute access token log in again.
      const login = await this.login(email, password);
      if (login.status !== 200) throw new Error(`admin login failed: ${login.status} ${login.text}`);
      this.#admin = { token: login.body.token, email, password };
    } else {
      const res = await this.request<{ token: string }>("/api/auth/setup/register", {
        body: { email, name: "Root", role: "superadmin", password },
      });
      if (res.status !== 201) throw new Error(`setup failed: ${res.status} ${res.text}`);
      this.#admin = { token: res.body.token, email, password };
    }
    this.#adminFreshUntil = now + 10 * 60_000;
    return this.#admin;
  }

  /**
   * A logged-in user of `role`, assigned to `projectIds`, created through the admin API.
   */
  async userWithRole(
    role: Role,
    projectIds: string[] = [],
  ): Promise<{ id: string; token: string; email: string; password: string }> {
    const { token: adminToken } = await this.admin();
    const email = `${role}-${randomUUID().slice(0, 8)}@caudal.test`;
    const password = "password-for-tests";
    const created = await this.request<{ id: string }>("/api/admin/users", {
      token: adminToken,
      body: { email, name: `Test ${role}`, role, password },
    });
    if (created.status !== 201) throw new Error(`create user failed: ${created.status} ${created.text}`);
    if (projectIds.length > 0) {
      const assigned = await this.request(`/api/admin/users/${created.body.id}/projects`, {
        method: "PUT",
        token: adminToken,
        body: { project_ids: projectIds },
      });
      if (assigned.status !== 200) throw new Error(`assign failed: ${assigned.status} ${assigned.text}`);
    }
    const login = await this.login(email, password);
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
    return { id: created.body.id, token: login.body.token, email, password };
  }

  login(email: string, password: string, extra: Record<string, string> = {}) {
    return this.request<{ token: string; access_token: string; role: string }>("/api/auth/login", {
      body: { email, password, ...extra },
    });
  }

  /** Creates a project through POST /api/edge/projects (as the superadmin unless `token` is given); its id. */
  async project(token?: string): Promise<string> {
    const res = await this.request<{ id: string }>("/api/edge/projects", {
      token: token ?? (await this.admin()).token,
      body: { name: `Project ${randomUUID().slice(0, 8)}` },
    });
    if (res.status !== 201) throw new Error(`create project failed: ${res.status} ${res.text}`);
    return res.body.id;
  }

  /** Creates an asset through POST /api/edge/assets (as the superadmin unless `token` is given); its id. */
  async asset(
    projectId: string,
    assetType: "well" | "tank" | "pipeline" | "station" | "meter" = "well",
    token?: string,
  ): Promise<string> {
    const res = await this.request<{ id: string }>("/api/edge/assets", {
      token: token ?? (await this.admin()).token,
      body: {
        project_id: projectId,
        name: `${assetType}-${randomUUID().slice(0, 8)}`,
        asset_type: assetType,
      },
    });
    if (res.status !== 201) throw new Error(`create asset failed: ${res.status} ${res.text}`);
    return res.body.id;
  }
}

/** The refresh token from a response's Set-Cookie header, if any. */
export function refreshCookieOf(res: ApiResponse): string | undefined {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("caudal_refresh="));
  return cookie?.split(";")[0]?.slice("caudal_refresh=".length) || undefined;
}
