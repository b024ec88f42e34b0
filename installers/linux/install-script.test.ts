import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect } from "vitest";
import { builtAgentBinaries } from "../../scripts/testing/agent-binaries.ts";
import { curlMissing, wgetMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import { TestServer } from "../../server/testing/harness.ts";
import type { AgentBuildManifest } from "../../shared/distribution/agent-manifest.ts";
import { CorruptingProxy } from "./corrupting-proxy.ts";

const curl = requirePeer("curl", curlMissing);
const wget = requirePeer("wget", wgetMissing);
const UNIT = readFileSync(
  fileURLToPath(new URL("../../systemd/caudal-agent.service", import.meta.url)),
  "utf8",
);

type Run = { code: number; stdout: string; stderr: string; systemctl: string[] };

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const mode = (file: string) => statSync(file).mode & 0o777;

/** Every file under `dir`, relative, sorted (what an install left behind). */
function filesUnder(dir: string, prefix = ""): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? filesUnder(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
    )
    .sort();
}

/**
 * The served install script (GET /api/edge/projects/{id}/linux-install) run by dash against a
 * running server with the real agent binaries, in a throw-away root with a stubbed systemctl
 * (issue 10, Done when: Install script).
 */
curl.describe("the served Linux install script, in a throw-away root", () => {
  let t: TestServer;
  let admin: string;
  let project: string;
  let manifest: AgentBuildManifest;
  let work: string;
  beforeAll(async () => {
    const built = await builtAgentBinaries();
    manifest = built.manifest;
    t = await TestServer.start({ AGENT_DIST_DIR: built.dir });
    admin = (await t.admin()).token;
    project = await t.project();
    work = mkdtempSync(join(tmpdir(), "caudal-linux-install-"));
  }, 300_000);
  afterAll(async () => {
    await t?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const shaOf = (target: string) => manifest.artifacts.find((a) => a.target === target)?.sha256;
  let n = 0;
  const fresh = (name: string) => {
    const dir = join(work, `${name}-${++n}`);
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  /** Downloads the project's script (from `base`: the server, or a proxy in front of it). */
  async function script(base = t.baseUrl): Promise<{ file: string; code: string }> {
    const res = await fetch(`${base}/api/edge/projects/${project}/linux-install`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const file = join(fresh("script"), "caudal-agent-install.sh");
    writeFileSync(file, text);
    const code = /^CAUDAL_ENROLLMENT_CODE='([^']+)'$/m.exec(text)?.[1];
    if (!code) throw new Error("the script carries no enrollment code");
    return { file, code };
  }

  /** Runs it with dash (POSIX sh), systemctl stubbed through $SYSTEMCTL; never throws. */
  async function install(file: string, args: string[], options: { path?: string } = {}): Promise<Run> {
    const stubDir = fresh("systemctl");
    const log = join(stubDir, "calls");
    const stub = join(stubDir, "systemctl");
    writeFileSync(stub, `#!/bin/sh\necho "$*" >> '${log}'\n`, { mode: 0o755 });
    // Asynchronous: the server answering the script's download runs in this process.
    const result = await new Promise<Omit<Run, "systemctl">>((resolve) => {
      const env = { PATH: options.path ?? process.env.PATH ?? "", HOME: work, SYSTEMCTL: stub };
      execFile("/bin/sh", [file, ...args], { env, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
    const systemctl = existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
    return { ...result, systemctl };
  }

  /** Revokes the project's newest enrollment code (the last script's). */
  async function revokeNewestCode(): Promise<void> {
    const codes = await t.request<{ id: string }[]>(`/api/edge/projects/${project}/enrollment-codes`, {
      token: admin,
    });
    const revoked = await t.request(`/api/edge/projects/${project}/enrollment-codes/${codes.body[0]?.id}`, {
      method: "DELETE",
      token: admin,
    });
    expect(revoked.status).toBe(200);
  }

  const codeStatus = async (): Promise<string | undefined> => {
    const res = await t.request<{ status: string }[]>(`/api/edge/projects/${project}/enrollment-codes`, {
      token: admin,
    });
    return res.body[0]?.status;
  };

  curl.it(
    "downloads the binary with the code, checks its SHA-256, installs binary, config and unit, starts the unit",
    async () => {
      const { file, code } = await script();
      const root = fresh("root");
      const run = await install(file, ["--root", root]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`--root ${root}: no system user and no ownership changes`);
      expect(run.stdout).toContain(`/api/edge/agent/linux-binary/x86_64`);
      expect(run.stdout).toContain(`sha256 ${shaOf("linux-x86_64")}: as the server built it`);
      expect(run.stdout).toMatch(/caudal-agent 1\.0\.0 \(commit [0-9a-f]+, node 24\.21\.0\)/);
      expect(filesUnder(root)).toEqual([
        "etc/caudal-agent/agent.json",
        "etc/systemd/system/caudal-agent.service",
        "opt/caudal-agent/caudal-agent",
      ]);
      const bin = join(root, "opt/caudal-agent/caudal-agent");
      expect(sha256(bin)).toBe(shaOf("linux-x86_64"));
      expect(mode(bin)).toBe(0o755);
      const config = join(root, "etc/caudal-agent/agent.json");
      expect(mode(config)).toBe(0o600);
      expect(JSON.parse(readFileSync(config, "utf8"))).toEqual({
        version: 1,
        server_url: t.baseUrl,
        project_id: project,
        enrollment_code: code,
        data_dir: "/var/lib/caudal-agent",
      });
      const unit = join(root, "etc/systemd/system/caudal-agent.service");
      expect(readFileSync(unit, "utf8")).toBe(UNIT);
      expect(mode(unit)).toBe(0o644);
      expect(run.systemctl).toEqual(["daemon-reload", "enable caudal-agent", "restart caudal-agent"]);
      // Downloading does not use the code up: the agent enrolls with it on its first start.
      expect(await codeStatus()).toBe("active");
    },
    120_000,
  );

  curl.it(
    "is idempotent; a re-run upgrades in place, keeping the data and the enrollment; a revoked re-run stops",
    async () => {
      const first = await script();
      const root = fresh("root");
      const listing = () =>
        filesUnder(root).map((f) => `${f} ${sha256(join(root, f))} ${mode(join(root, f))}`);
      expect((await install(first.file, ["--root", root])).code).toBe(0);
      const tree = listing();
      const again = await install(first.file, ["--root", root]);
      expect(again.code).toBe(0);
      // The same build is not fetched again, but the server still vouches for the code.
      expect(again.stdout).toContain("is already this build");
      expect(again.stdout).toContain("Checking the enrollment code");
      expect(again.stdout).not.toContain("Downloading");
      expect(listing()).toEqual(tree);
      expect(again.systemctl).toEqual(["daemon-reload", "enable caudal-agent", "restart caudal-agent"]);

      // The agent enrolls (the code is used) and keeps its token and buffer in its data dir; the
      // machine runs an older build.
      const enrolled = await t.request("/api/edge/agents/enroll", { body: { code: first.code } });
      expect(enrolled.status).toBe(200);
      const data = join(root, "var/lib/caudal-agent");
      mkdirSync(data, { recursive: true });
      const token = JSON.stringify({
        project_id: project,
        agent_token: "cat_x".repeat(8),
        mqtt_url: "mqtt://h:1",
      });
      writeFileSync(join(data, "agent-token.json"), token, { mode: 0o600 });
      writeFileSync(join(data, "agent.db"), "the agent's buffer");
      writeFileSync(join(root, "opt/caudal-agent/caudal-agent"), "#!/bin/sh\necho an older build\n");
      const config = readFileSync(join(root, "etc/caudal-agent/agent.json"), "utf8");

      const upgrade = await script();
      const run = await install(upgrade.file, ["--root", root]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("Downloading the agent");
      expect(run.stdout).toContain(`Keeping ${root}/etc/caudal-agent/agent.json: the agent is enrolled`);
      expect(sha256(join(root, "opt/caudal-agent/caudal-agent"))).toBe(shaOf("linux-x86_64"));
      expect(readFileSync(join(root, "etc/caudal-agent/agent.json"), "utf8")).toBe(config);
      expect(readFileSync(join(data, "agent-token.json"), "utf8")).toBe(token);
      expect(readFileSync(join(data, "agent.db"), "utf8")).toBe("the agent's buffer");
      expect(run.systemctl).toEqual(["daemon-reload", "enable caudal-agent", "restart caudal-agent"]);

      // Its code revoked, the same script refuses to run again, though the build is current.
      await revokeNewestCode();
      const upgraded = listing();
      const stopped = await install(upgrade.file, ["--root", root]);
      expect(stopped.code).toBe(1);
      expect(stopped.stderr).toContain(
        "HTTP 401: the enrollment code in this script is expired, revoked or unknown",
      );
      expect(stopped.systemctl).toEqual([]);
      expect(listing()).toEqual(upgraded);
    },
    120_000,
  );

  curl.it("--uninstall removes everything but the data; --purge removes the data too", async () => {
    const { file } = await script();
    const root = fresh("root");
    expect((await install(file, ["--root", root])).code).toBe(0);
    const data = join(root, "var/lib/caudal-agent");
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, "agent.db"), "buffer");
    const removed = await install(file, ["--uninstall", "--root", root]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("--purge removes it");
    expect(removed.systemctl).toEqual(["disable --now caudal-agent", "daemon-reload"]);
    expect(filesUnder(root)).toEqual(["var/lib/caudal-agent/agent.db"]);
    expect(readdirSync(join(root, "opt"))).toEqual([]);
    const purged = await install(file, ["--purge", "--root", root]);
    expect(purged.code).toBe(0);
    expect(filesUnder(root)).toEqual([]);
    expect(existsSync(data)).toBe(false);
    // Nothing installed any more: no unit to stop.
    expect(purged.systemctl).toEqual(["daemon-reload"]);
  });

  curl.it("--dry-run prints each step and changes nothing", async () => {
    const { file } = await script();
    const root = fresh("root");
    const run = await install(file, ["--dry-run", "--root", root]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`would download it to ${root}/opt/caudal-agent/caudal-agent.download`);
    expect(run.stdout).toContain(`would write ${root}/etc/caudal-agent/agent.json (mode 0600)`);
    expect(run.stdout).toContain(`would write ${root}/etc/systemd/system/caudal-agent.service (mode 0644)`);
    expect(run.stdout).toContain("would run: ");
    expect(run.stdout).toContain("restart caudal-agent");
    expect(run.stdout).toContain("Dry run: nothing was changed");
    expect(run.systemctl).toEqual([]);
    expect(readdirSync(root)).toEqual([]);
  });

  curl.it(
    "refuses a download corrupted on its way (a proxy that alters a byte); nothing is installed",
    async () => {
      const proxy = new CorruptingProxy(t.server.port);
      await proxy.start();
      try {
        // Fetched through the proxy, the script names the proxy as its server: the binary comes through it too.
        const { file } = await script(proxy.url);
        expect(readFileSync(file, "utf8")).toContain(`CAUDAL_SERVER_URL='${proxy.url}'`);
        const root = fresh("root");
        const run = await install(file, ["--root", root]);
        expect(run.code).toBe(1);
        expect(run.stderr).toContain(`checksum mismatch: expected ${shaOf("linux-x86_64")}, got `);
        expect(run.stderr).toContain("nothing was installed");
        expect(readdirSync(root)).toEqual([]);
        expect(run.systemctl).toEqual([]);
      } finally {
        await proxy.stop();
      }
    },
  );

  curl.it("refuses a revoked enrollment code with the server's reason; nothing is installed", async () => {
    const { file } = await script();
    await revokeNewestCode();
    const root = fresh("root");
    const run = await install(file, ["--root", root]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "the server refused the download (HTTP 401: this enrollment code was revoked",
    );
    expect(readdirSync(root)).toEqual([]);
    expect(run.systemctl).toEqual([]);
  });

  wget.it("downloads with wget when curl is missing, and reports a refusal the same way", async () => {
    const bin = fresh("path");
    const tools = ["sh", "id", "uname", "cat", "sed", "grep", "awk", "mkdir", "mv", "chmod", "rm", "rmdir"];
    for (const tool of [...tools, "cut", "head", "sha256sum", "mktemp", "wget", "pwd"]) {
      const found = ["/usr/bin", "/bin"].map((d) => join(d, tool)).find((p) => existsSync(p));
      if (!found) throw new Error(`${tool} not found`);
      symlinkSync(found, join(bin, tool));
    }
    const { file } = await script();
    const root = fresh("root");
    const run = await install(file, ["--root", root], { path: bin });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(sha256(join(root, "opt/caudal-agent/caudal-agent"))).toBe(shaOf("linux-x86_64"));
    // A re-run asks wget for the headers only (--spider).
    const again = await install(file, ["--root", root], { path: bin });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("is already this build");

    await revokeNewestCode();
    const refused = await install(file, ["--root", fresh("root")], { path: bin });
    expect(refused.code).toBe(1);
    // wget keeps no body on a 401, so the script explains the status itself.
    expect(refused.stderr).toContain(
      "HTTP 401: the enrollment code in this script is expired, revoked or unknown",
    );
  });

  curl.it("--arch aarch64 with --root stages an arm64 machine's files (checked, not run)", async () => {
    const { file } = await script();
    const root = fresh("root");
    const run = await install(file, ["--root", root, "--arch", "aarch64"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("/api/edge/agent/linux-binary/aarch64");
    expect(run.stdout).not.toContain("caudal-agent 1.0.0 (commit");
    expect(sha256(join(root, "opt/caudal-agent/caudal-agent"))).toBe(shaOf("linux-aarch64"));
  });

  curl.it(
    "refuses before changing anything: another project's enrolled agent, --arch without --root, a bad option",
    async () => {
      const { file } = await script();
      const root = fresh("root");
      const data = join(root, "var/lib/caudal-agent");
      mkdirSync(data, { recursive: true });
      const other = JSON.stringify({ project_id: "3f2a3c2e-0000-4000-8000-000000000000", agent_token: "x" });
      writeFileSync(join(data, "agent-token.json"), other);
      const enrolledElsewhere = await install(file, ["--root", root]);
      expect(enrolledElsewhere.code).toBe(1);
      expect(enrolledElsewhere.stderr).toContain("enrolled in another project");
      expect(filesUnder(root)).toEqual(["var/lib/caudal-agent/agent-token.json"]);

      const foreign = await install(file, ["--arch", "aarch64"]);
      expect(foreign.code).toBe(1);
      expect(foreign.stderr).toContain("use it with --root DIR");
      const unknown = await install(file, ["--frobnicate"]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain("unknown option --frobnicate");
      expect(unknown.stderr).toContain("usage:");
      expect([...foreign.systemctl, ...unknown.systemctl]).toEqual([]);
      chmodSync(file, 0o644);
    },
  );
});
