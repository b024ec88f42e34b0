import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { expect, type TestContext } from "vitest";

export const VIEWPORTS = {
  laptop: { width: 1366, height: 768 },
  tablet: { width: 768, height: 1024 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

/** Screenshots of every page at both sizes (ignored by git: test-artifacts/). */
export const ARTIFACTS = join(import.meta.dirname, "..", "..", "..", "test-artifacts", "console");

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
  /** The server's answers to changes (not GETs): status, and the body of a refusal (never a token). */
  answers: string[];
  /** Every console message, as "type: text". */
  console: string[];
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
  const answers: string[] = [];
  const messages: string[] = [];
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
  page.on("response", (res) => {
    const url = new URL(res.url());
    const method = res.request().method();
    if (url.host !== server.host || method === "GET") return;
    const line = `${method} ${url.pathname}: ${res.status()}`;
    if (res.ok()) answers.push(line);
    else
      res.text().then(
        (body) => answers.push(`${line} ${body.slice(0, 500)}`),
        () => answers.push(line),
      );
  });
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    messages.push(`${msg.type()}: ${msg.text()}`);
    // Chrome logs every 4xx answer as an error; the API's refusals (a 401 on sign-in) are expected.
    if (
      msg.type() === "error" &&
      !/^Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())
    )
      errors.push(`console: ${msg.text()}`);
  });
  return {
    context,
    page,
    blocked,
    errors,
    requests,
    answers,
    console: messages,
    close: () => context.close(),
  };
}

/**
 * When the test fails, prints what its page showed (alerts, notices, field errors), the server's
 * answers to its changes, its console, and the server's last log lines: a timeout alone says only
 * what did not appear.
 */
export function explainFailure(
  test: Pick<TestContext, "onTestFailed">,
  g: GuardedPage,
  /** The tail of the server's log (startSite's `log`). */
  serverLog: readonly string[] = [],
): void {
  test.onTestFailed(async () => {
    const shown = await g.page
      .locator('[role="alert"], [role="status"], .field-error:not(:empty)')
      .allTextContents()
      .catch((err: unknown) => [`(the page cannot be read: ${String(err)})`]);
    console.log(
      [
        `The page at ${g.page.url()} shows: ${JSON.stringify(shown)}`,
        "The server's answers to its changes:",
        ...g.answers,
        "Its console:",
        ...g.console.slice(-30),
        "The server's last log lines:",
        ...serverLog,
      ].join("\n"),
    );
  });
}

/**
 * Holds the page's first `method` request to `path` until release(), to make its answer arrive at a
 * moment the test chooses. `arrived` resolves once the request is held.
 */
export async function holdFirstRequest(
  page: Page,
  method: string,
  path: string,
): Promise<{ arrived: Promise<void>; release(): void }> {
  let arrive = () => {};
  let release = () => {};
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  await page.route(
    (url) => url.pathname === path,
    async (route) => {
      if (!held && route.request().method() === method) {
        held = true;
        arrive();
        await released;
      }
      // On to the context's route (guardedPage's), which records it.
      await route.fallback();
    },
  );
  return { arrived, release };
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
