import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import {
  createAsset,
  createDevice,
  createVariable,
  postRecord,
  setClock,
} from "../../server/testing/fixtures/report-fixtures.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import type { AnhReportPreview } from "../src/api/compliance-types.ts";
import { zonedToUtc } from "../src/i18n/format.ts";
import { BROWSER_TEST_TIMEOUT_MS, explainFailure, guardedPage, screenshot } from "./testing/browser.ts";
import { signIn, startSite } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

const ZONE = "America/Bogota";
const MIN = 60_000;

/** Preview content as this test reads it (the fields the page's figures come from). */
type Preview = AnhReportPreview & {
  content: AnhReportPreview["content"] & {
    data_quality: { gaps: { asset_id: string; variable: string; start: string; end: string }[] };
  };
};

/*
 * The figures of the ANH page's preview, read in the browser, against the numbers of the preview
 * response the page itself received. Three series polled every minute: Well A's pressure and
 * temperature from 08:00 to 10:00 (temperature silent 09:00–09:30) and Tank B's level from 09:00
 * to 11:00, with the server's clock at 20:00 of the project's day. No series covered 00:00–08:00
 * and 11:00–20:00: 1,020 minutes of the 1,200 elapsed. The report's own gap_minutes, summed over
 * series, is larger than the day so far: the page must not show it as minutes of the day.
 */
requirePeer("chromium", chromiumMissing).describe("the ANH page's figures, in chromium", () => {
  let t: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  let log: readonly string[];
  let projectId: string;
  let dayStart: number;

  beforeAll(async () => {
    ({ t, browser, stop, log } = await startSite());
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: ZONE }).format(Date.now());
    dayStart = zonedToUtc(`${today}T00:00`, ZONE);
    // Created at 00:00, so that "so far today" means the same on the Overview as in the report.
    setClock(t, dayStart);
    const res = await t.request<{ id: string }>("/api/edge/projects", {
      token: (await t.admin()).token,
      body: { name: "Campo Figuras", timezone: ZONE },
    });
    expect(res.status, res.text).toBe(201);
    projectId = res.body.id;
    setClock(t, dayStart + 20 * 60 * MIN);
    const admin = await t.admin();
    const well = await createAsset(t, projectId, "Well A");
    const tank = await createAsset(t, projectId, "Tank B", "tank");
    const wellPlc = await createDevice(t, well);
    const tankPlc = await createDevice(t, tank);
    await createVariable(t, wellPlc, "pressure", MIN, "psi");
    await createVariable(t, wellPlc, "temperature", MIN, "degC");
    await createVariable(t, tankPlc, "level", MIN, "ft");
    const at = (hour: number, minute: number) => dayStart + hour * 60 * MIN + minute * MIN;
    const items: { asset_id: string; timestamp: string; readings: { variable: string; value: number }[] }[] =
      [];
    for (let m = 8 * 60; m < 11 * 60; m++) {
      const ts = new Date(at(0, m)).toISOString();
      const wellReadings = [];
      if (m < 10 * 60) wellReadings.push({ variable: "pressure", value: 800 + (m % 7) });
      if (m < 10 * 60 && (m < 9 * 60 || m >= 9 * 60 + 30))
        wellReadings.push({ variable: "temperature", value: 60 });
      if (wellReadings.length > 0) items.push({ asset_id: well, timestamp: ts, readings: wellReadings });
      if (m >= 9 * 60)
        items.push({ asset_id: tank, timestamp: ts, readings: [{ variable: "level", value: 12 }] });
    }
    for (let i = 0; i < items.length; i += 100) {
      const upload = await t.request("/api/telemetry/batch", {
        token: admin.token,
        body: { items: items.slice(i, i + 100) },
      });
      expect(upload.status, upload.text).toBe(201);
    }
    await postRecord(t, "movements", {
      project_id: projectId,
      movement_type: "production",
      volume_bbls: 1234.5,
      timestamp: new Date(at(9, 0)).toISOString(),
    });
    await postRecord(t, "downtime", {
      project_id: projectId,
      reason: "Pump change",
      started_at: new Date(at(10, 0)).toISOString(),
      ended_at: new Date(at(11, 30)).toISOString(),
    });
  });
  afterAll(async () => stop?.());

  /** Opens the ANH page of the project; the preview response the page received. */
  async function openReports(page: Page): Promise<Preview> {
    const received = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/anh/reports/preview");
    await page.goto(`${t.baseUrl}/#/compliance/reports?project=${projectId}`);
    const preview = (await (await received).json()) as Preview;
    await page.getByTestId("uncovered").waitFor();
    return preview;
  }

  it("shows minutes no series covered, and each series' own, as parts of the day so far, locale-formatted", async (test) => {
    const g = await guardedPage(browser, t.baseUrl);
    explainFailure(test, g, log);
    const admin = await t.admin();
    await signIn(g.page, t.baseUrl, admin);
    await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    const preview = await openReports(g.page);
    const expected = figuresOf(preview);
    const c = preview.content;
    const n = new Intl.NumberFormat("en-US", { maximumFractionDigits: 3 });

    // The day so far, and the time no series covered, from the preview's own gaps.
    expect(expected.elapsed).toBeGreaterThanOrEqual(1200);
    expect(expected.uncovered).toBeGreaterThanOrEqual(1020);
    expect(expected.uncovered).toBeLessThan(expected.elapsed);
    // The report sums minutes over series: more than the day has had.
    expect(c.data_quality.gap_minutes).toBeGreaterThan(expected.elapsed);
    const text = (id: string) => g.page.getByTestId(id).textContent();
    expect(await text("uncovered")).toBe(
      `${n.format(expected.uncovered)} min of the ${n.format(expected.elapsed)} min elapsed today`,
    );
    const worst = expected.series[0];
    expect(worst).toMatchObject({ name: "Well A · temperature", gaps: 3 });
    expect(await text("series-gaps")).toBe(
      `3 of 3 series had gaps (${n.format(expected.gapCount)} gaps); the longest: ` +
        `${n.format(worst?.minutes ?? -1)} min without readings, Well A · temperature`,
    );
    expect(await text("uncovered")).toContain(","); // 1,020 and 1,200: grouped for the locale
    // Each series' own minutes, in the table.
    await g.page.getByTestId("series-gaps-table").locator("summary").click();
    const rows = await g.page
      .getByTestId("series-gaps-table")
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent).join("|")));
    expect(rows).toEqual(
      expected.series.map((s) => `${s.name.replace(" · ", "|")}|${n.format(s.gaps)}|${n.format(s.minutes)}`),
    );

    // Every other figure of the preview, as the preview itself gives it.
    const elapsedShare = (Date.parse(preview.as_of) - dayStart) / (Date.parse(preview.period_end) - dayStart);
    const completeness = c.telemetry.samples_received / (c.telemetry.samples_expected * elapsedShare);
    // 330 readings of the 3 × 1,200 expected by 20:00.
    expect(c.telemetry.samples_received).toBe(330);
    expect(completeness).toBeCloseTo(330 / 3600, 2);
    expect(await text("completeness")).toBe(
      new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 }).format(completeness),
    );
    expect(await text("production")).toBe(`${n.format(c.movements.totals_bbls.production)} barrels`);
    expect(c.movements.totals_bbls.production).toBe(1234.5);
    expect(await text("record-counts")).toBe(
      `movements: ${c.movements.count}, downtime: ${c.downtime.count}, well tests: ${c.well_tests.count}, ` +
        `lab results: ${c.lab_results.count}, meter readings: ${c.meter_readings.count}`,
    );
    expect(await text("hours-lost")).toBe(
      new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 }).format(c.downtime.total_hours_lost),
    );
    expect(c.downtime.total_hours_lost).toBe(1.5);
    expect(await text("alarm-count")).toBe(n.format(c.alarms.count));
    await screenshot(g.page, "reports-figures-en", "laptop");
    expect(g.errors).toEqual([]);
    await g.close();
  });

  it("the Overview's production and completeness so far are the preview's", async (test) => {
    const g = await guardedPage(browser, t.baseUrl);
    explainFailure(test, g, log);
    const admin = await t.admin();
    await signIn(g.page, t.baseUrl, admin);
    await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    const preview = await t.request<Preview>(`/api/anh/reports/preview?project_id=${projectId}`, {
      token: admin.token,
    });
    const c = preview.body.content;
    const card = g.page.locator(`[data-project="${projectId}"]`);
    await card.getByTestId("completeness").waitFor();
    const elapsedShare =
      (Date.parse(preview.body.as_of) - dayStart) / (Date.parse(preview.body.period_end) - dayStart);
    const percent = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });
    expect(await card.getByTestId("completeness").textContent()).toBe(
      percent.format(c.telemetry.samples_received / (c.telemetry.samples_expected * elapsedShare)),
    );
    expect(await card.getByTestId("production-today").textContent()).toBe(
      `${new Intl.NumberFormat("en-US", { maximumFractionDigits: 1 }).format(c.movements.totals_bbls.production)} barrels`,
    );
    expect(g.errors).toEqual([]);
    await g.close();
  });

  it("in Spanish, the same figures in Spanish words and numbers", async (test) => {
    const g = await guardedPage(browser, t.baseUrl, { locale: "es-CO" });
    explainFailure(test, g, log);
    const admin = await t.admin();
    await signIn(g.page, t.baseUrl, admin, {
      email: "Correo electrónico",
      password: "Contraseña",
      submit: "Ingresar",
    });
    await g.page.getByRole("heading", { name: "Resumen", level: 1 }).waitFor();
    const preview = await openReports(g.page);
    const expected = figuresOf(preview);
    const n = new Intl.NumberFormat("es-CO", { maximumFractionDigits: 3 });
    expect(await g.page.getByTestId("uncovered").textContent()).toBe(
      `${n.format(expected.uncovered)} min de los ${n.format(expected.elapsed)} min transcurridos hoy`,
    );
    expect(await g.page.getByTestId("production").textContent()).toBe(
      `${n.format(preview.content.movements.totals_bbls.production)} barriles`,
    );
    await screenshot(g.page, "reports-figures-es", "laptop");
    expect(g.errors).toEqual([]);
    await g.close();
  });
});

/**
 * The figures worked out from the preview's gaps without the page's code: the day so far is cut
 * into the pieces between any two gap edges, and each piece is in a gap of a series or not.
 */
function figuresOf(preview: Preview) {
  const start = Date.parse(preview.period_start);
  const cut = Math.min(Date.parse(preview.as_of), Date.parse(preview.period_end));
  const gaps = preview.content.data_quality.gaps.map((g) => ({
    key: `${g.asset_id} ${g.variable}`,
    from: Math.max(start, Date.parse(g.start)),
    to: Math.min(cut, Date.parse(g.end)),
  }));
  const names = new Map<string, string>();
  for (const a of preview.content.telemetry.assets)
    for (const v of a.variables) names.set(`${a.asset_id} ${v.variable}`, `${a.asset_name} · ${v.variable}`);
  const edges = [...new Set([start, cut, ...gaps.flatMap((g) => [g.from, g.to])])]
    .filter((e) => e >= start && e <= cut)
    .sort((a, b) => a - b);
  let uncoveredMs = 0;
  for (let i = 1; i < edges.length; i++) {
    const [a, b] = [edges[i - 1] ?? 0, edges[i] ?? 0];
    const mid = (a + b) / 2;
    const inGap = [...names.keys()].every((k) =>
      gaps.some((g) => g.key === k && g.from <= mid && mid < g.to),
    );
    if (inGap) uncoveredMs += b - a;
  }
  const perSeries = new Map<string, { gaps: number; ms: number }>();
  for (const g of gaps) {
    if (g.to <= g.from) continue;
    const s = perSeries.get(g.key) ?? { gaps: 0, ms: 0 };
    s.gaps++;
    s.ms += g.to - g.from;
    perSeries.set(g.key, s);
  }
  const series = [...perSeries.entries()]
    .map(([key, s]) => ({ name: names.get(key) ?? key, gaps: s.gaps, minutes: Math.round(s.ms / MIN) }))
    .sort((a, b) => b.minutes - a.minutes || a.name.localeCompare(b.name));
  return {
    elapsed: Math.round((cut - start) / MIN),
    uncovered: Math.round(uncoveredMs / MIN),
    gapCount: series.reduce((n, s) => n + s.gaps, 0),
    series,
  };
}
