import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { mqttUrlSchema } from "../shared/mqtt/agent-file-config.ts";

/** What enrollment leaves in the data dir: the agent's credentials, mode 0600. */
export const storedTokenSchema = z.object({
  project_id: z.uuid(),
  agent_token: z.string().min(16),
  mqtt_url: mqttUrlSchema,
});

export type StoredToken = z.infer<typeof storedTokenSchema>;

export const tokenFilePath = (dataDir: string) => join(dataDir, "agent-token.json");

/** The stored token, or undefined when there is none. A file that is there but unreadable is an error. */
export function readTokenFile(path: string): StoredToken | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`cannot read ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  let parsed: ReturnType<typeof storedTokenSchema.safeParse>;
  try {
    parsed = storedTokenSchema.safeParse(JSON.parse(text));
  } catch {
    throw new Error(`${path} is not JSON; remove it to enroll again with a new enrollment code`);
  }
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => i.path.join(".") || "(root)").join(", ");
    throw new Error(`${path} is invalid (${fields}); remove it to enroll again with a new enrollment code`);
  }
  return parsed.data;
}

/**
 * Writes the token atomically: a temporary file created 0600 (never readable by others, even for a
 * moment), flushed, then renamed over the target, and the directory flushed so the rename survives
 * a power cut.
 */
export function writeTokenFile(path: string, token: StoredToken): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  rmSync(tmp, { force: true });
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, `${JSON.stringify(token, null, 2)}\n`);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, path);
  // Windows cannot open a directory to flush it; NTFS journals the rename itself.
  if (process.platform === "win32") return;
  const dirFd = openSync(dir, "r");
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
}
