import { afterAll, beforeAll } from "vitest";

/*
 * Test files share a worker process (vitest.config.ts, isolate: false), so the environment one
 * file leaves is the next file's. Libraries change it behind a test's back: node-opcua-crypto puts
 * back an unset OPENSSL_CONF as the string "undefined", and every later `openssl` in the process
 * failed on it. Each file ends with the environment it started with.
 */
let before: Record<string, string | undefined> = {};

beforeAll(() => {
  before = { ...process.env };
});

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!Object.hasOwn(before, name)) delete process.env[name];
  for (const [name, value] of Object.entries(before))
    if (process.env[name] !== value) process.env[name] = value;
});
