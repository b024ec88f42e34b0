import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import { BROWSER_TEST_TIMEOUT_MS, eventually, guardedPage } from "./testing/browser.ts";
import { signIn, startSite } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

/**
 * While the server builds the agent executables at start (issue 28 §3), the installers section
 * shows that build's state and progress instead of download buttons that would fail, and offers
 * each download once its executable is made. The real build takes minutes of CPU: the server runs
 * server/testing/agent-build-stand-in.ts in its place (see agent-build.test.ts), which makes each
 * executable when this test writes its file in the gate folder.
 */
requirePeer("chromium", chromiumMissing).describe(
  "the installers while the agent is built, in chromium",
  () => {
    const gate = mkdtempSync(join(tmpdir(), "caudal-agent-build-gate-"));
    const standIn = fileURLToPath(new URL("../../server/testing/agent-build-stand-in.ts", import.meta.url));
    let t: TestServer;
    let browser: Browser;
    let stop: () => Promise<void>;
    let projectId: string;
    let supervisor: Awaited<ReturnType<TestServer["userWithRole"]>>;
    beforeAll(async () => {
      ({ t, browser, stop } = await startSite({
        overrides: { AGENT_BUILD: "auto" },
        agentBuildCommand: { command: process.execPath, args: [standIn, "--gate", gate] },
      }));
      await t.admin();
      projectId = await t.project();
      supervisor = await t.userWithRole("supervisor", [projectId]);
    });
    afterAll(async () => stop?.());

    it("shows the build's progress instead of the buttons; offers each download once it is built", async () => {
      const g = await guardedPage(browser, t.baseUrl);
      await signIn(g.page, t.baseUrl, supervisor);
      await g.page.locator("main h1").first().waitFor();
      await g.page.goto(`${t.baseUrl}/#/configuration?project=${projectId}`);
      const section = g.page.locator("section[aria-labelledby=config-installers]");
      const linux = section.getByTestId("linux-agent-build");
      const windows = section.getByTestId("windows-agent-build");
      await eventually(() => linux.getAttribute("data-state")).toBe("building");
      expect(await linux.textContent()).toContain(
        "The server is building the agent executables (0 of 3 done)",
      );
      expect(await windows.getAttribute("data-state")).toBe("building");
      for (const button of [
        "linux-script",
        "linux-binary-x86_64",
        "linux-binary-aarch64",
        "windows-installer",
      ])
        expect(await section.getByTestId(button).count(), button).toBe(0);

      // The x86_64 executable is made: the page, polling /health, offers the Linux downloads for it.
      writeFileSync(join(gate, "1"), "");
      await section.getByTestId("linux-script").waitFor();
      expect(await section.getByTestId("linux-binary-x86_64").count()).toBe(1);
      expect(await section.getByTestId("linux-binary-aarch64").count()).toBe(0);
      expect(await linux.textContent()).toContain("(1 of 3 done)");
      expect(await windows.getAttribute("data-state")).toBe("building");
      expect(await section.getByTestId("windows-installer").count()).toBe(0);

      writeFileSync(join(gate, "2"), "");
      writeFileSync(join(gate, "3"), "");
      await section.getByTestId("windows-installer").waitFor();
      await section.getByTestId("linux-binary-aarch64").waitFor();
      expect(await linux.count()).toBe(0);
      expect(await windows.count()).toBe(0);
      expect(g.errors).toEqual([]);
      await g.close();
    });
  },
);
