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

/**
 * The addresses both banners print, the console first; each answers 200
 * (scripts/start/first-contact.test.ts calls them).
 */
export function serverLines(base: string): string[] {
  return [
    `  Console        ${base}/ (the operator console: sign in there)`,
    `  API explorer   ${base}/docs (the REST API is under /api)`,
    `  OpenAPI        ${base}/docs/openapi.yaml`,
    `  Health         ${base}/health`,
    `  Metrics        ${base}/metrics`,
  ];
}

export function banner(
  base: string,
  requiresSetup: boolean | undefined,
  envFile: string,
  requestLogFile: string,
): string {
  const lines = [
    "",
    "Caudal is running.",
    ...serverLines(base),
    `  Request log    ${requestLogFile}`,
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
