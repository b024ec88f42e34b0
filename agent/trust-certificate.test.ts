import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "caudal-trust-"));
const dataDir = join(dir, "data");
const configFile = join(dir, "agent.json");
writeFileSync(
  configFile,
  JSON.stringify({
    version: 1,
    mqtt_url: "mqtt://127.0.0.1:1883",
    project_id: "3f1c2a9e-8d4b-4c1e-9a57-2b6f0c8e1d23",
    agent_token: "cat_0123456789abcdef0123",
    data_dir: dataDir,
  }),
);

/** `caudal-agent trust <file>`, as the operator runs it: the real entry point in a child process. */
const trust = (...args: string[]) =>
  spawnSync(process.execPath, ["agent/main.ts", "trust", ...args], {
    env: { ...process.env, AGENT_CONFIG: configFile },
    encoding: "utf8",
    timeout: 30_000,
  });

describe("caudal-agent trust <file>", () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("copies a server certificate into <data_dir>/pki/trusted/certs and says so", () => {
    const pem = join(dir, "server.pem");
    const made = spawnSync("openssl", [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-subj",
      "/CN=opcua-server",
      "-keyout",
      join(dir, "server.key"),
      "-out",
      pem,
      "-days",
      "1",
    ]);
    expect(made.status, String(made.stderr)).toBe(0);
    const run = trust(pem);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    const target = join(dataDir, "pki", "trusted", "certs", "server.pem");
    expect(run.stdout).toContain(target);
    expect(readFileSync(target, "utf8")).toBe(readFileSync(pem, "utf8"));
  });

  it("refuses a file that is not a certificate, a missing file, and no file", () => {
    const text = join(dir, "notes.txt");
    writeFileSync(text, "not a certificate");
    const notCert = trust(text);
    expect(notCert.status).toBe(1);
    expect(notCert.stderr).toContain("is not a certificate");
    expect(existsSync(join(dataDir, "pki", "trusted", "certs", "notes.txt"))).toBe(false);
    const missing = trust(join(dir, "nope.pem"));
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("cannot read");
    const none = trust();
    expect(none.status).toBe(1);
    expect(none.stderr).toContain("usage: caudal-agent trust");
  });
});
