import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { ApiError, type CaudalApi } from "./api-client.ts";

export const DEMO_EMAIL = "demo@example.com";
const DEMO_NAME = "Demo Admin";

/**
 * DATA_DIR/demo.json holds exactly the body of POST /api/auth/login, so a person can log in with
 * `curl -d @data/demo.json`. It is a credential: mode 0600, written before the account exists so
 * a crash cannot leave an account nobody can log in to.
 */
const credentialsSchema = z.object({ email: z.email(), password: z.string().min(8) });
export type DemoCredentials = z.infer<typeof credentialsSchema>;

const sessionSchema = z.object({ token: z.string().min(1) });
const setupStatusSchema = z.object({ requires_setup: z.boolean() });

export type DemoAccount =
  | { ok: true; credentials: DemoCredentials; created: boolean; token: string }
  | { ok: false; reason: string };

/**
 * Logs in as the demo account, creating it on a fresh database (the first account, which
 * the setup endpoint makes superadmin). Never takes over a database where people already made
 * their own accounts.
 */
export async function ensureDemoAccount(api: CaudalApi, file: string): Promise<DemoAccount> {
  if (existsSync(file)) {
    const parsed = credentialsSchema.safeParse(parseJson(readFileSync(file, "utf8")));
    if (!parsed.success) return { ok: false, reason: `${file} is not a valid demo login; remove it` };
    const res = await api.raw("POST", "/api/auth/login", parsed.data);
    if (res.status === 200) {
      const session = sessionSchema.parse(parseJson(res.text));
      return { ok: true, credentials: parsed.data, created: false, token: session.token };
    }
    if (res.status !== 401) throw new ApiError("POST /api/auth/login", res.status, res.text);
    // A first run stopped between writing the file and creating the account leaves a login for an
    // account that never existed: on a database still without accounts, start over.
    if (!(await setupRequired(api))) {
      return {
        ok: false,
        reason: `the demo login in ${file} is refused (password changed or account removed)`,
      };
    }
    unlinkSync(file);
  } else if (!(await setupRequired(api))) {
    return { ok: false, reason: `accounts already exist in this database and ${file} does not` };
  }

  const credentials = { email: DEMO_EMAIL, password: randomBytes(12).toString("base64url") };
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  const res = await api.raw("POST", "/api/auth/setup/register", {
    ...credentials,
    name: DEMO_NAME,
    role: "superadmin",
  });
  if (res.status === 409) {
    // Someone created the first account between the status check and now: it is theirs.
    unlinkSync(file);
    return { ok: false, reason: "another account was created first" };
  }
  if (res.status !== 201) {
    unlinkSync(file);
    throw new ApiError("POST /api/auth/setup/register", res.status, res.text);
  }
  return { ok: true, credentials, created: true, token: sessionSchema.parse(parseJson(res.text)).token };
}

async function setupRequired(api: CaudalApi): Promise<boolean> {
  return (await api.call("GET", "/api/auth/setup/status", 200, setupStatusSchema)).requires_setup;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
