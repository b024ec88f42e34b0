import { type Browser, chromium } from "playwright-core";
import { CHROMIUM } from "./peers.ts";

/**
 * Debian's chromium, headless, as the browser tests drive it: without the background-networking
 * flags it would try Google's hosts at every start on a machine with no Internet.
 */
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
