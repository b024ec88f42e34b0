import type { ServerConfig } from "../../server/config.ts";

/** Where a person reaches the server: a wildcard bind address is reachable as localhost. */
export function publicBaseUrl(config: Pick<ServerConfig, "HOST" | "PORT">): string {
  const wildcard = config.HOST === "0.0.0.0" || config.HOST === "::" || config.HOST === "";
  const host = wildcard ? "localhost" : config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST;
  return `http://${host}:${config.PORT}`;
}

/** Where this machine probes it (IPv4 loopback for a wildcard bind). */
export function probeBaseUrl(config: Pick<ServerConfig, "HOST" | "PORT">): string {
  const wildcard = config.HOST === "0.0.0.0" || config.HOST === "::" || config.HOST === "";
  return wildcard ? `http://127.0.0.1:${config.PORT}` : publicBaseUrl(config);
}

export function banner(base: string, requiresSetup: boolean | undefined, envFile: string): string {
  const lines = [
    "",
    "Caudal is running.",
    `  API            ${base}/api`,
    `  API explorer   ${base}/docs`,
    `  OpenAPI        ${base}/docs/openapi.yaml`,
    `  Health         ${base}/health`,
    `  Metrics        ${base}/metrics`,
    `  Configuration  ${envFile}`,
    "",
  ];
  if (requiresSetup !== false) {
    lines.push(
      "No account exists yet. Create the first one (it becomes the superadmin) in the explorer",
      "(Auth > POST /api/auth/setup/register) or with:",
      `  curl -X POST ${base}/api/auth/setup/register -H 'content-type: application/json' \\`,
      `    -d '{"email":"you@example.com","name":"Your Name","password":"at least 8 chars"}'`,
      "",
    );
  }
  lines.push("Press Ctrl-C to stop.", "");
  return lines.join("\n");
}
