import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** The repository's dist/agent, where `npm run build:agent` writes. */
const DEFAULT_AGENT_DIST_DIR = fileURLToPath(new URL("../dist/agent", import.meta.url));
const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL("../dist/console", import.meta.url));

const port = z.coerce.number().int().min(0).max(65535);

/**
 * One core for the main thread (it writes), one for the rest of the machine (the broker's
 * sockets, the packer and checkpointer, a TLS proxy, the OS), HTTP workers on the others. A
 * request a worker serves costs about a third more CPU in all than one the main thread serves
 * (its bytes are relayed between the threads), which pays only while a core is spare: on 2 cores
 * with the load on the same machine, a worker lowered batch ingest from 600k to 565k points/s
 * and left single POSTs where they were (2,786–3,018 req/s against 2,743) at 136% of a core
 * against 101% (README, "HTTP workers").
 */
function defaultHttpWorkers(): number {
  return Math.max(0, availableParallelism() - 2);
}

const base64Key32 = z
  .string({ error: "is required (base64 of 32 random bytes, e.g. `openssl rand -base64 32`)" })
  .refine((v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, "base64").length === 32, {
    message: "must be base64 that decodes to exactly 32 bytes (e.g. `openssl rand -base64 32`)",
  });

export const serverConfigSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default("0.0.0.0"),
  MQTT_PORT: port.default(1883),
  DATA_DIR: z.string().min(1).default("./data"),
  /**
   * Where the data lives (server/store/location.ts): unset, SQLite in DATA_DIR/caudal.db (the
   * embedded default); `sqlite:<file>` another SQLite file; `postgres://…` PostgreSQL.
   */
  DATABASE_URL: z
    .string()
    .optional()
    .refine((v) => v === undefined || v === "" || /^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(v), {
      message: "must be sqlite:<file> or postgres://user:password@host:port/database",
    }),
  /**
   * Connections of the PostgreSQL pool (DATABASE_URL=postgres://…) of the main thread; each HTTP
   * worker thread has a pool of a quarter of it (at least 2).
   */
  DATABASE_POOL_SIZE: z.coerce
    .number({ error: "must be a whole number from 2 to 200" })
    .int("must be a whole number from 2 to 200")
    .min(2, "must be a whole number from 2 to 200")
    .max(200, "must be a whole number from 2 to 200")
    .default(10),
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  TOTP_SECRET_ENCRYPTION_KEY: base64Key32,
  JWT_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  LOGIN_RATE_LIMIT: z.coerce.number().int().min(1).default(10),
  LOGIN_RATE_LIMIT_PER_ADDRESS: z.coerce.number().int().min(1).default(100),
  TELEMETRY_RETENTION_DAYS: z.coerce.number().int().min(1).default(400),
  /**
   * Hours after which raw telemetry is packed into compressed blocks, counted from the end of its
   * hour (0: as soon as the hour is over). Late readings for packed hours are merged later.
   */
  TELEMETRY_PACK_AFTER_HOURS: z.coerce
    .number()
    .min(0)
    .max(24 * 400)
    .default(1),
  /**
   * New readings of one series in one commit from which they are written straight into a packed
   * block instead of raw rows (store/sqlite/telemetry/raw-insert.ts). 0: always raw rows.
   */
  TELEMETRY_BLOCK_POINTS: z.coerce
    .number({ error: "must be a whole number from 0 to 4096" })
    .int("must be a whole number from 0 to 4096")
    .min(0, "must be a whole number from 0 to 4096")
    .max(4096, "must be a whole number from 0 to 4096")
    .default(16),
  COMM_LOSS_SECONDS: z.coerce.number().int().min(1).default(300),
  /**
   * Worker threads that parse, authenticate and validate telemetry ingest requests while the main
   * thread writes (server/http-workers/). 0: the main thread alone serves every request.
   */
  HTTP_WORKERS: z.coerce
    .number({ error: "must be a whole number from 0 to 64" })
    .int("must be a whole number from 0 to 64")
    .min(0, "must be a whole number from 0 to 64")
    .max(64, "must be a whole number from 0 to 64")
    .default(defaultHttpWorkers()),
  /** `text` for a person at a console (`npm start`); `json` lines for machines. */
  LOG_FORMAT: z.enum(["json", "text"]).default("json"),
  /** Where the per-request lines go instead of stdout (`npm start`: DATA_DIR/logs/requests.log). */
  REQUEST_LOG_FILE: z.string().min(1).optional(),
  // 4 MiB: far above the largest legitimate packet (a full 5,000-point batch is ~150 kB); MQTT's own
  // ceiling is 256 MiB [MQTT-2.2.3].
  MQTT_MAX_PACKET_BYTES: z.coerce.number().int().min(1024).max(268_435_460).default(4_194_304),
  /**
   * The server's public base URL (e.g. https://caudal.example.com), as agents and install scripts
   * reach it; unset, the URL a request came in on.
   */
  PUBLIC_URL: z
    .url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" })
    .transform((u) => u.replace(/\/+$/, ""))
    .optional(),
  /** The broker URL handed to enrolling agents; unset, mqtt://<PUBLIC_URL's or the request's host>:<MQTT_PORT>. */
  PUBLIC_MQTT_URL: z
    .url({ protocol: /^(mqtts?|wss?)$/, error: "must be an mqtt://, mqtts://, ws:// or wss:// URL" })
    .optional(),
  /** Enrollment attempts (POST /api/edge/agents/enroll) per client address per minute. */
  /**
   * The agent executables and their manifest.json (`npm run build:agent`), served by the Linux
   * binary endpoint and packed into MSIs. Relative paths are from the working directory.
   */
  AGENT_DIST_DIR: z.string().min(1).default(DEFAULT_AGENT_DIST_DIR),
  /**
   * `auto`: at start, when executables are missing from AGENT_DIST_DIR and this server runs from a
   * checkout with the build tooling, it builds them in the background, at low priority
   * (services/distribution/agent-build/). `off`: never; an administrator runs npm run build:agent.
   */
  AGENT_BUILD: z.enum(["auto", "off"]).default("auto"),
  /** How long wixl may take to build one MSI before it is killed and the build fails. */
  INSTALLER_BUILD_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(300),
  ENROLL_RATE_LIMIT: z.coerce.number().int().min(1).default(10),
  /** The built operator console (`npm run build:console`), served at `/`. Relative paths are from the working directory. */
  CONSOLE_DIR: z.string().min(1).default(DEFAULT_CONSOLE_DIR),
});

export type ServerConfig = z.infer<typeof serverConfigSchema>;

export class ConfigError extends Error {}

/** Parses the environment once, at start-up. Throws ConfigError with one line per bad field. */
export function loadServerConfig(env: NodeJS.ProcessEnv): ServerConfig {
  const defined = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = serverConfigSchema.safeParse(defined);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".") || "(root)"}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join("\n")}`);
  }
  return result.data;
}
