import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import { en } from "../src/i18n/en.ts";
import { es } from "../src/i18n/es.ts";
import { seedAgentPages } from "./testing/agent-field.ts";
import { axeViolations } from "./testing/axe.ts";
import {
  BROWSER_TEST_TIMEOUT_MS,
  guardedPage,
  screenshot,
  VIEWPORTS,
  type ViewportName,
} from "./testing/browser.ts";
import { generateYesterdaysReport, recordMovement } from "./testing/compliance-data.ts";
import { consoleField, signIn, startSite, writeValues } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

/**
 * English messages left in the page's text: a line that is one (a label, a button), or a sentence
 * found inside a line. Single words inside a line are data (a project named "Project 1").
 */
function englishLeft(text: string): string[] {
  const lines = text.split("\n").map((l) => l.trim());
  return Object.entries(en)
    .filter(([key, value]) => value !== es[key as keyof typeof es] && !value.includes("{"))
    .map(([, value]) => value)
    .filter((value) => lines.some((line) => line === value || (value.includes(" ") && line.includes(value))));
}

const LANGUAGES = [
  {
    locale: "es-CO",
    language: "es",
    labels: { email: "Correo electrónico", password: "Contraseña", submit: "Ingresar" },
  },
  { locale: "en-US", language: "en", labels: { email: "Email", password: "Password", submit: "Sign in" } },
] as const;

requirePeer("chromium", chromiumMissing).describe(
  "every page in both languages and both screens, in chromium",
  () => {
    let t: TestServer;
    let browser: Browser;
    let stop: () => Promise<void>;
    let f: Awaited<ReturnType<typeof consoleField>>;
    beforeAll(async () => {
      ({ t, browser, stop } = await startSite());
      f = await consoleField(t);
      await writeValues(
        t,
        f.admin.token,
        f.wellId,
        { pressure: 1000, temperature: 81.5, oil_rate: 420 },
        "psi",
      );
      await writeValues(t, f.admin.token, f.wellId, { pressure: 1650 }, "psi");
      await seedAgentPages(t, f.admin.token, f.projectId, f.tankId);
      await recordMovement(t, f.operador.token, f.projectId, 1250.5);
      await generateYesterdaysReport(t, f.admin.token, f.projectId);
    });
    afterAll(async () => stop?.());

    const pages = () => [
      { name: "overview", path: "/overview", ready: "[data-project] [data-testid=alarms-critical]" },
      {
        name: "asset",
        path: `/projects/${f.projectId}/assets/${f.wellId}`,
        ready: "[data-testid=trend-chart][data-points]",
      },
      { name: "alarms", path: `/alarms?project=${f.projectId}`, ready: "[data-testid=alarm-history]" },
      {
        name: "agents",
        path: `/agents?project=${f.projectId}`,
        ready: [
          "[data-testid=agent-none]",
          "[data-testid=deployed-version]",
          "[data-testid=agent-logs]",
          "[data-testid=check-device]",
        ],
      },
      {
        name: "configuration",
        path: `/configuration?project=${f.projectId}`,
        ready: ["[data-testid=devices]", "[data-testid=rules]", "[data-testid=no-codes]"],
      },
      {
        name: "reports",
        path: "/compliance/reports",
        ready: "main:has([data-testid=report-preview]):has([data-testid=reports])",
      },
      { name: "records", path: "/compliance/records", ready: "[data-testid=records] tbody tr" },
      { name: "audit", path: "/compliance/audit", ready: "[data-testid=audit-log] tbody tr" },
      { name: "users", path: "/admin/users", ready: "[data-testid=users] tbody tr" },
      { name: "two-factor", path: "/admin/two-factor", ready: "[data-testid=two-factor-status]" },
      {
        name: "billing",
        path: "/admin/billing",
        ready: "main:has([data-testid=billing-summary]):has([data-testid=invoices])",
      },
    ];

    for (const lang of LANGUAGES) {
      for (const viewport of Object.keys(VIEWPORTS) as ViewportName[]) {
        it(`${lang.language} at ${VIEWPORTS[viewport].width}×${VIEWPORTS[viewport].height}: renders, translated, accessible`, async () => {
          const g = await guardedPage(browser, t.baseUrl, { viewport, locale: lang.locale });
          await g.page.goto(`${t.baseUrl}/`);
          await g.page.getByLabel(lang.labels.email).waitFor();
          expect(await g.page.evaluate("document.documentElement.lang")).toBe(lang.language);
          const problems: string[] = [];
          const check = async (name: string) => {
            await screenshot(g.page, `${name}-${lang.language}`, viewport);
            for (const v of await axeViolations(g.page)) problems.push(`${name}: ${v}`);
            if (lang.language === "es") {
              for (const s of englishLeft(await g.page.innerText("body")))
                problems.push(`${name}: untranslated "${s}"`);
            }
            // Nothing wider than the screen but the tables' own scrolling boxes.
            const overflow = await g.page.evaluate(
              "document.documentElement.scrollWidth - window.innerWidth",
            );
            if (overflow !== 0) problems.push(`${name}: ${overflow}px wider than the screen`);
          };
          await check("sign-in");
          await signIn(g.page, t.baseUrl, f.admin, lang.labels);
          await g.page.locator("[data-project]").first().waitFor();
          for (const p of pages()) {
            await g.page.goto(`${t.baseUrl}/#${p.path}`);
            for (const ready of [p.ready].flat()) await g.page.locator(ready).first().waitFor();
            await check(p.name);
          }
          expect(problems).toEqual([]);
          expect(g.errors).toEqual([]);
          expect(g.blocked).toEqual([]);
          await g.close();
        });
      }
    }

    it("the language switch overrides the browser's and is remembered", async () => {
      const g = await guardedPage(browser, t.baseUrl, { locale: "en-US" });
      await signIn(g.page, t.baseUrl, f.operador);
      await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
      await g.page.getByTestId("language").selectOption("es");
      await g.page.getByRole("heading", { name: "Resumen", level: 1 }).waitFor();
      expect(await g.page.evaluate("document.documentElement.lang")).toBe("es");
      await g.page.reload();
      await g.page.getByRole("heading", { name: "Resumen", level: 1 }).waitFor();
      expect(await g.page.getByRole("navigation").getByRole("link").allTextContents()).toEqual([
        "Resumen",
        "Alarmas",
        "Agentes",
        "Cumplimiento",
      ]);
      await g.close();
    });
  },
);
