import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { chromiumMissing } from "../../scripts/testing/peers.ts";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import type { TestServer } from "../../server/testing/harness.ts";
import { zonedToUtc } from "../src/i18n/format.ts";
import {
  BROWSER_TEST_TIMEOUT_MS,
  eventually,
  explainFailure,
  guardedPage,
  holdFirstRequest,
  screenshot,
} from "./testing/browser.ts";
import {
  expectBearerOnChanges,
  type GeneratedReport,
  generateYesterdaysReport,
} from "./testing/compliance-data.ts";
import { consoleField, signIn, startSite } from "./testing/console-site.ts";

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS, hookTimeout: BROWSER_TEST_TIMEOUT_MS });

type Movement = {
  id: string;
  volume_bbls: number;
  timestamp: string;
  notes: string | null;
  supersedes: string | null;
  superseded_by: string | null;
  correction_reason: string | null;
  created_by: string | null;
};

requirePeer("chromium", chromiumMissing).describe("the compliance pages, in chromium", () => {
  let t: TestServer;
  let browser: Browser;
  let stop: () => Promise<void>;
  let log: readonly string[];
  let f: Awaited<ReturnType<typeof consoleField>>;
  let report: GeneratedReport;
  beforeAll(async () => {
    ({ t, browser, stop, log } = await startSite());
    f = await consoleField(t);
    report = await generateYesterdaysReport(t, f.admin.token, f.projectId);
  });
  afterAll(async () => stop?.());

  it("an anh_reader lands on the reports, downloads one, and the browser's SHA-384 verifies it", async (test) => {
    const g = await guardedPage(browser, t.baseUrl);
    explainFailure(test, g, log);
    await signIn(g.page, t.baseUrl, f.reader);
    await g.page.getByRole("heading", { name: "ANH reports", level: 1 }).waitFor();
    const row = g.page.locator(`[data-report="${report.id}"]`);
    expect(await row.getByTestId("report-hash").textContent()).toBe(report.hash_sha384);
    expect(await row.textContent()).toContain("Not checked yet");
    // Only a supervisor and above submit or generate.
    expect(await g.page.getByRole("button", { name: /submitted|Generate/ }).count()).toBe(0);

    const [download] = await Promise.all([
      g.page.waitForEvent("download"),
      row.getByRole("button", { name: `Download the report of ${report.report_date}, version 1` }).click(),
    ]);
    await eventually(() => row.getByTestId("verification").textContent()).toBe("Verified: the hash matches");
    // The file saved is the API's: the same bytes the server hashed.
    const bytes = readFileSync(await download.path());
    expect(download.suggestedFilename()).toMatch(/^anh-.+-v1\.json$/);
    expect(createHash("sha384").update(bytes).digest("hex")).toBe(report.hash_sha384);
    const hash = await t.request(`/api/anh/reports/${report.id}/hash`, { token: f.admin.token });
    expect(hash.text).toBe(report.hash_sha384);
    const fetched = g.requests.find((r) => r.url.pathname.endsWith(`/${report.id}/download`));
    expect(fetched?.headers.authorization).toMatch(/^Bearer /);
    expect(fetched?.url.search).toBe("");
    expect(await g.page.getByTestId("report-preview").textContent()).toContain("Production");
    await screenshot(g.page, "reports-verified-en", "laptop");
    expect(g.errors).toEqual([]);
    expect(g.blocked).toEqual([]);
    await g.close();
  });

  it("a supervisor marks a report as submitted; the API records who and when", async (test) => {
    const g = await guardedPage(browser, t.baseUrl);
    explainFailure(test, g, log);
    await signIn(g.page, t.baseUrl, f.supervisor);
    await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await g.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Compliance" }).click();
    const row = g.page.locator(`[data-report="${report.id}"]`);
    await row.getByRole("button", { name: "Mark as submitted" }).click();
    await row.getByRole("button", { name: "Confirm: submitted to the ANH" }).click();
    await g.page.getByText(`The report of ${report.report_date} is marked as submitted.`).waitFor();
    expect(await row.textContent()).toContain("Submitted");
    expect(await row.getByRole("button", { name: "Mark as submitted" }).count()).toBe(0);
    const api = await t.request<{ status: string; submitted_by: string; submitted_at: string }>(
      `/api/anh/reports/${report.id}`,
      { token: f.admin.token },
    );
    expect(api.body).toMatchObject({ status: "submitted", submitted_by: f.supervisor.id });
    expectBearerOnChanges(g);
    expect(g.errors).toEqual([]);
    await g.close();
  });

  it("an operator enters a movement, sees the API's refusal beside the field, and corrects it with a reason", async (test) => {
    const g = await guardedPage(browser, t.baseUrl);
    explainFailure(test, g, log);
    await signIn(g.page, t.baseUrl, f.operador);
    await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    // The form shows before the list, which on a loaded machine arrives while the operator types.
    // Held until the first field is filled, its render always comes mid-entry and must keep it.
    const list = await holdFirstRequest(g.page, "GET", "/api/movements");
    await g.page.goto(`${t.baseUrl}/#/compliance/records?project=${f.projectId}&type=movements`);
    const form = g.page.getByTestId("record-form");
    await form.waitFor();
    await form.getByLabel("When").fill("2025-06-01T05:00");
    await list.arrived;
    list.release();
    await g.page.getByText("No records of this type yet.").waitFor();
    expect(await form.getByLabel("When").inputValue()).toBe("2025-06-01T05:00");
    await form.getByLabel("Movement type").selectOption("transfer");
    await form.getByLabel("Volume (bbl)").fill("-5");
    await form.getByLabel("Notes (optional)").fill("Tank 3 to LACT unit");
    await form.getByRole("button", { name: "Save record" }).click();
    // The API's own message, beside the field it names.
    await eventually(() => g.page.locator("#record-volume_bbls-error").textContent()).toBe(
      "must be 0 or more",
    );
    expect(await form.getByLabel("Volume (bbl)").getAttribute("aria-invalid")).toBe("true");

    await form.getByLabel("Volume (bbl)").fill("1250.5");
    await form.getByRole("button", { name: "Save record" }).click();
    await g.page.getByText("Record saved.").waitFor();
    const rows = g.page.getByTestId("records").locator("tbody tr");
    await eventually(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain("Transfer");
    expect(await rows.first().textContent()).toContain("1,250.5");

    await rows
      .first()
      .getByRole("button", { name: /^Correct the record of/ })
      .click();
    await g.page.getByRole("heading", { name: "Correct a record" }).waitFor();
    expect(await form.getByLabel("Volume (bbl)").inputValue()).toBe("1250.5");
    expect(await form.getByLabel("When").inputValue()).toBe("2025-06-01T05:00");
    await form.getByLabel("Volume (bbl)").fill("1205");
    await form.getByRole("button", { name: "Save correction" }).click();
    await eventually(() => g.page.locator("#record-correction_reason-error").textContent()).toBe(
      "is required when supersedes is given",
    );
    await form.getByLabel("Reason for the correction").fill("Gauge misread: 1205 bbl, not 1250.5");
    await form.getByRole("button", { name: "Save correction" }).click();
    await g.page.getByText("Correction saved.").waitFor();
    await eventually(() => rows.count()).toBe(2);
    expect(await g.page.getByTestId("correction-reason").textContent()).toBe(
      "Reason: Gauge misread: 1205 bbl, not 1250.5",
    );
    await screenshot(g.page, "records-corrected-en", "laptop");

    // In the API: the correction, with its reason, supersedes the original, which is kept.
    const api = await t.request<Movement[]>(`/api/movements?project_id=${f.projectId}`, {
      token: f.admin.token,
    });
    const [correction, original] = api.body;
    expect(api.body).toHaveLength(2);
    expect(correction).toMatchObject({
      volume_bbls: 1205,
      notes: "Tank 3 to LACT unit",
      supersedes: original?.id,
      correction_reason: "Gauge misread: 1205 bbl, not 1250.5",
      created_by: f.operador.id,
    });
    expect(original).toMatchObject({ volume_bbls: 1250.5, superseded_by: correction?.id });
    // Entered as 05:00 on the project's clock (Bogotá), stored as that instant.
    expect(correction?.timestamp).toBe(
      new Date(zonedToUtc("2025-06-01T05:00", "America/Bogota")).toISOString(),
    );
    // The corrected record can no longer be corrected; the correction can.
    expect(await rows.getByRole("button", { name: /^Correct/ }).count()).toBe(1);
    expectBearerOnChanges(g);
    expect(g.errors).toEqual([]);
    await g.close();
  });

  it("an anh_reader reads the records but has no form and no corrections", async (test) => {
    const g = await guardedPage(browser, t.baseUrl);
    explainFailure(test, g, log);
    await signIn(g.page, t.baseUrl, f.reader);
    await g.page.getByRole("heading", { name: "ANH reports", level: 1 }).waitFor();
    await g.page.getByRole("link", { name: "Operational records" }).click();
    await g.page.getByTestId("records").locator("tbody tr").first().waitFor();
    expect(await g.page.getByTestId("record-form").count()).toBe(0);
    expect(await g.page.getByRole("button", { name: /^Correct/ }).count()).toBe(0);
    await g.close();
  });

  it("the audit log shows the correction; an admin verifies the chain, a supervisor cannot", async (test) => {
    const g = await guardedPage(browser, t.baseUrl);
    explainFailure(test, g, log);
    await signIn(g.page, t.baseUrl, f.admin);
    await g.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await g.page.goto(`${t.baseUrl}/#/compliance/audit`);
    await g.page.getByLabel("Entity").fill("movement");
    await g.page.getByRole("button", { name: "Filter" }).click();
    const rows = g.page.getByTestId("audit-log").locator("tbody tr");
    await eventually(() => rows.count()).toBe(2);
    expect(await rows.first().textContent()).toContain(f.operador.email);
    await g.page.getByTestId("audit-verify").click();
    const result = g.page.getByTestId("audit-verification");
    await eventually(() => result.textContent()).toContain("Intact");
    const api = await t.request<{ valid: boolean; entries: number; head: { seq: number; hash: string } }>(
      "/api/audit/verify",
      { token: f.admin.token },
    );
    expect(api.body.valid).toBe(true);
    const text = (await result.textContent()) ?? "";
    expect(text).toContain(`${api.body.entries.toLocaleString("en-US")} entries verified.`);
    expect(text).toContain(api.body.head.hash);
    await screenshot(g.page, "audit-verified-en", "laptop");
    await g.close();

    const s = await guardedPage(browser, t.baseUrl);
    explainFailure(test, s, log);
    await signIn(s.page, t.baseUrl, f.supervisor);
    await s.page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await s.page.goto(`${t.baseUrl}/#/compliance/audit`);
    await s.page.getByTestId("audit-log").waitFor();
    expect(await s.page.getByTestId("audit-verify").count()).toBe(0);
    expect(s.requests.some((r) => r.url.pathname === "/api/audit/verify")).toBe(false);
    expect(s.errors).toEqual([]);
    await s.close();
  });
});
