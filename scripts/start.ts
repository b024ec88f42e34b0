import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, loadServerConfig } from "../server/config.ts";
import { banner, probeBaseUrl, publicBaseUrl } from "./start/banner.ts";
import { ensureEnvFile, mergeEnv } from "./start/env-file.ts";
import { Supervisor } from "./start/supervisor.ts";

// `npm start` (after scripts/start.sh installed dependencies): the whole system in the foreground.
// Each program is a child of this supervisor; the agent and the PLC simulator join the list later.
const root = fileURLToPath(new URL("..", import.meta.url));
const envPath = process.env.CAUDAL_ENV_FILE ?? join(root, ".env");
const say = (line: string) => process.stdout.write(`${line}\n`);

const envFile = ensureEnvFile(envPath);
if (envFile.created) say(`== wrote ${envPath} with fresh secrets (mode 0600)`);
for (const warning of envFile.warnings) say(`== warning: ${warning}`);
const env = mergeEnv(envFile.values, process.env);

let config: ReturnType<typeof loadServerConfig>;
try {
  config = loadServerConfig(env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`npm start: ${err.message}\n(fix ${envPath} or the shell environment)\n`);
  process.exit(1);
}

const supervisor = new Supervisor(say);
supervisor.start({ name: "server", command: process.execPath, args: ["server/main.ts"], cwd: root, env });

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    say(supervisor.stopping ? "== stopping now (killing)" : `== ${signal}: stopping`);
    supervisor.stop(signal);
  });
}

void announceWhenUp();
process.exitCode = await supervisor.wait();

/** Prints the URLs once /health answers, and whether the first account still has to be made. */
async function announceWhenUp(): Promise<void> {
  const probe = probeBaseUrl(config);
  const deadline = Date.now() + 60_000;
  while (!supervisor.stopping && Date.now() < deadline) {
    try {
      const health = await fetch(`${probe}/health`, { signal: AbortSignal.timeout(2000) });
      if (health.status === 200 || health.status === 503) {
        const status = await fetch(`${probe}/api/auth/setup/status`, { signal: AbortSignal.timeout(2000) });
        const body = status.ok ? ((await status.json()) as { requires_setup?: boolean }) : {};
        say(banner(publicBaseUrl(config), body.requires_setup, envPath));
        return;
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
