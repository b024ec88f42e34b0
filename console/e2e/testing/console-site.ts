import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import { launchChromium } from "../../../scripts/testing/chromium.ts";
import { builtConsole } from "../../../scripts/testing/console-build.ts";
import type { ServerConfig } from "../../../server/config.ts";
import { createLogger } from "../../../server/logger.ts";
import type { CaudalServerOptions } from "../../../server/server.ts";
import { totpCode } from "../../../server/services/auth/totp.ts";
import { TestServer } from "../../../server/testing/harness.ts";

/** Lines of the server's log kept for a failing test to print (explainFailure). */
const LOG_TAIL = 40;

/**
 * A real server serving the console built from this checkout, and Debian's chromium. `log` holds
 * the server's last log lines (one per request).
 */
export async function startSite(
  server: {
    overrides?: Partial<Record<keyof ServerConfig, string>>;
    agentBuildCommand?: CaudalServerOptions["agentBuildCommand"];
  } = {},
): Promise<{
  t: TestServer;
  browser: Browser;
  log: readonly string[];
  stop(): Promise<void>;
}> {
  const { dir } = await builtConsole();
  const log: string[] = [];
  const logger = createLogger("info", (line) => {
    log.push(line.trimEnd());
    if (log.length > LOG_TAIL) log.shift();
  });
  const t = await TestServer.start(
    { CONSOLE_DIR: dir, ...server.overrides },
    { logger, agentBuildCommand: server.agentBuildCommand },
  );
  const browser = await launchChromium();
  return {
    t,
    browser,
    log,
    stop: async () => {
      await browser.close();
      await t.stop();
    },
  };
}

/** Signs in through the page's form (English labels unless `labels` says otherwise). */
export async function signIn(
  page: Page,
  baseUrl: string,
  user: { email: string; password: string },
  labels = { email: "Email", password: "Password", submit: "Sign in" },
): Promise<void> {
  if (!page.url().startsWith(baseUrl)) await page.goto(`${baseUrl}/`);
  await page.getByLabel(labels.email).fill(user.email);
  await page.getByLabel(labels.password).fill(user.password);
  await page.getByRole("button", { name: labels.submit, exact: true }).click();
}

/** The TOTP code of the server's clock, `offset` steps ahead (the current step is used up by enabling). */
export function codeFor(t: TestServer, secret: string, offset: number): string {
  return totpCode(secret, new Date(t.clock.now().getTime() + offset * 30_000));
}

/** A project with a well and a tank, an alert rule on the well's pressure, and users of each role on it. */
export async function consoleField(t: TestServer) {
  const admin = await t.admin();
  const projectId = await t.project();
  const wellId = await t.asset(projectId, "well");
  const tankId = await t.asset(projectId, "tank");
  const rule = await t.request<{ id: string }>("/api/alert-rules", {
    token: admin.token,
    body: {
      project_id: projectId,
      name: "High pressure",
      variable_alias: "pressure",
      condition: "gt",
      threshold: 1500,
      severity: "critical",
    },
  });
  expect(rule.status).toBe(201);
  const [supervisor, operador, reader] = await Promise.all([
    t.userWithRole("supervisor", [projectId]),
    t.userWithRole("operador", [projectId]),
    t.userWithRole("anh_reader", [projectId]),
  ]);
  return { admin, projectId, wellId, tankId, supervisor, operador, reader };
}

/** POST /api/telemetry as `token`. */
export async function writeValues(
  t: TestServer,
  token: string,
  assetId: string,
  values: Record<string, number>,
  unit?: string,
): Promise<void> {
  const res = await t.request("/api/telemetry", {
    token,
    body: {
      asset_id: assetId,
      readings: Object.entries(values).map(([variable, value]) => ({
        variable,
        value,
        ...(unit ? { unit } : {}),
      })),
    },
  });
  expect(res.status, res.text).toBe(201);
}
