import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";
import { CHROMIUM } from "../../../scripts/testing/peers.ts";

export const VIEWPORTS = {
  laptop: { width: 1366, height: 768 },
  tablet: { width: 768, height: 1024 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

/** Screenshots of every page at both sizes (ignored by git: test-artifacts/). */
export const ARTIFACTS = join(import.meta.dirname, "..", "..", "..", "test-artifacts", "console");

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** A page whose every request outside the test server is aborted and recorded, with its errors collected. */
export type GuardedPage = {
  context: BrowserContext;
  page: Page;
  /** Requests to anywhere but the server: must stay empty. */
  blocked: string[];
  /** Page errors, console errors and CSP violations: must stay empty. */
  errors: string[];
  /** Every request to the server, as method and path with its query. */
  requests: { method: string; url: URL; headers: Record<string, string> }[];
  close(): Promise<void>;
};

export async function guardedPage(
  browser: Browser,
  baseUrl: string,
  options: { viewport?: ViewportName; locale?: string } = {},
): Promise<GuardedPage> {
  const server = new URL(baseUrl);
  const context = await browser.newContext({
    viewport: VIEWPORTS[options.viewport ?? "laptop"],
    locale: options.locale ?? "en-US",
    acceptDownloads: true,
  });
  const page = await context.newPage();
  const blocked: string[] = [];
  const errors: string[] = [];
  const requests: GuardedPage["requests"] = [];
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === "data:" || url.protocol === "blob:") return route.continue();
    if (url.host !== server.host) {
      blocked.push(url.href);
      return route.abort("internetdisconnected");
    }
    requests.push({ method: route.request().method(), url, headers: route.request().headers() });
    return route.continue();
  });
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    // Chrome logs every 4xx answer as an error; the API's refusals (a 401 on sign-in) are expected.
    if (
      msg.type() === "error" &&
      !/^Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())
    )
      errors.push(`console: ${msg.text()}`);
  });
  return { context, page, blocked, errors, requests, close: () => context.close() };
}

export async function screenshot(page: Page, name: string, viewport: ViewportName): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}-${viewport}.png`), fullPage: true });
}

/**
 * expect.poll with room for a loaded machine (`npm test` runs files side by side on two cores):
 * 15 s unless told, where vitest's default is 1 s.
 */
export function eventually<T>(
  fn: () => T | Promise<T>,
  options: { timeout?: number; message?: string } = {},
) {
  return expect.poll(fn, { timeout: 15_000, interval: 100, ...options });
}

/** Browser tests start a server and chromium and wait on pages: generous limits for a loaded CI machine. */
export const BROWSER_TEST_TIMEOUT_MS = 120_000;
