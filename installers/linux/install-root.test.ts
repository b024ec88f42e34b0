import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { curlMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import { installFiles, renderTemplate } from "../../server/services/distribution/install-template.ts";

const curl = requirePeer("curl", curlMissing);

/**
 * A stand-in for the agent: the script runs `<binary> --version` before installing it. The
 * served script's real download and agent are covered by install-script.test.ts; this file needs
 * no agent build, only the script and something that answers its download.
 */
const AGENT = "#!/bin/sh\necho 'caudal-agent 0.0.0 (stand-in)'\n";
const sha256 = createHash("sha256").update(AGENT).digest("hex");

type Run = { code: number; stdout: string; stderr: string };

curl.describe("linux-install --root DIR, DIR not there yet", () => {
  let work: string;
  let server: Server;
  let script: string;
  let downloads = 0;
  let refuse = false;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "caudal-install-root-"));
    server = createServer((req, res) => {
      downloads++;
      if (refuse || !req.url?.startsWith("/api/edge/agent/linux-binary/")) {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "Unauthorized", message: "this code was revoked" }));
        return;
      }
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end(AGENT);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const files = installFiles();
    const text = renderTemplate(
      files.template,
      {
        CAUDAL_SERVER_URL: `http://127.0.0.1:${port}`,
        CAUDAL_PROJECT_ID: "prj_root_test",
        CAUDAL_ENROLLMENT_CODE: "cen_test",
        CAUDAL_ENROLLMENT_EXPIRES_AT: "2030-01-01T00:00:00Z",
        CAUDAL_AGENT_VERSION: "0.0.0 (commit test)",
        CAUDAL_SHA256_X86_64: sha256,
        CAUDAL_SHA256_AARCH64: sha256,
      },
      { CAUDAL_AGENT_CONFIG: '{"version": 1}', CAUDAL_AGENT_UNIT: files.unit },
    );
    script = join(work, "caudal-agent-install.sh");
    writeFileSync(script, text);
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** The script under sh (dash on Debian), no systemctl: a staged install. */
  const run = (args: string[]): Promise<Run> =>
    new Promise((resolve) => {
      const env = { PATH: process.env.PATH ?? "", HOME: work };
      execFile("/bin/sh", [script, ...args], { env, cwd: work }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === "number" ? err.code : -1) : 0, stdout, stderr });
      });
    });

  curl.it("creates the staging folder, nested, and installs into it", async () => {
    const root = join(work, "image", "rootfs");
    const r = await run(["--root", root, "--arch", "x86_64"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(readFileSync(join(root, "opt/caudal-agent/caudal-agent"), "utf8")).toBe(AGENT);
    expect(statSync(join(root, "etc/caudal-agent/agent.json")).mode & 0o777).toBe(0o600);
    expect(existsSync(join(root, "etc/systemd/system/caudal-agent.service"))).toBe(true);
  });

  curl.it("--dry-run names the folder it would create and creates nothing", async () => {
    const root = join(work, "dry", "rootfs");
    const r = await run(["--root", root, "--dry-run", "--arch", "x86_64"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`would create ${root}`);
    expect(existsSync(join(work, "dry", "rootfs"))).toBe(false);
  });

  curl.it("a refused download removes the folder it created; --uninstall does not create one", async () => {
    refuse = true;
    try {
      const before = downloads;
      const root = join(work, "refused");
      const r = await run(["--root", root, "--arch", "x86_64"]);
      expect(downloads).toBeGreaterThan(before);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("this code was revoked");
      expect(existsSync(root)).toBe(false);
    } finally {
      refuse = false;
    }
    const gone = join(work, "never");
    const u = await run(["--uninstall", "--root", gone]);
    expect(u.code).toBe(1);
    expect(u.stderr).toContain("no such directory");
    expect(existsSync(gone)).toBe(false);
    // A file where the folder should be is refused, not overwritten.
    const file = join(work, "a-file");
    writeFileSync(file, "x");
    const f = await run(["--root", file, "--arch", "x86_64"]);
    expect(f.code).toBe(1);
    expect(f.stderr).toContain("not a directory");
  });
});
