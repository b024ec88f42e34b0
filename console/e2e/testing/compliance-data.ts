import { expect } from "vitest";
import type { TestServer } from "../../../server/testing/harness.ts";
import { zonedToUtc } from "../../src/i18n/format.ts";
import type { GuardedPage } from "./browser.ts";

/** Yesterday in `timeZone` as YYYY-MM-DD: the newest production day that has closed. */
export function yesterdayIn(timeZone: string, now = Date.now()): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone }).format(now - 86_400_000);
}

export type GeneratedReport = { id: string; report_date: string; version: number; hash_sha384: string };

/**
 * Generates yesterday's ANH report of the project through POST /api/anh/reports/generate. The
 * project was created today, so yesterday is only reportable with something in it: a lab result
 * of yesterday noon (a backfilled record) goes in first.
 */
export async function generateYesterdaysReport(
  t: TestServer,
  token: string,
  projectId: string,
): Promise<GeneratedReport> {
  const lab = await t.request("/api/lab-results", {
    token,
    body: {
      project_id: projectId,
      sample_date: new Date(
        zonedToUtc(`${yesterdayIn("America/Bogota")}T12:00`, "America/Bogota"),
      ).toISOString(),
      api_gravity: 21.5,
    },
  });
  expect(lab.status, lab.text).toBe(201);
  const res = await t.request<GeneratedReport>("/api/anh/reports/generate", {
    token,
    body: { project_id: projectId, report_date: yesterdayIn("America/Bogota") },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Records a movement through POST /api/movements; its id. */
export async function recordMovement(
  t: TestServer,
  token: string,
  projectId: string,
  volume: number,
): Promise<string> {
  const res = await t.request<{ id: string }>("/api/movements", {
    token,
    body: {
      project_id: projectId,
      movement_type: "production",
      volume_bbls: volume,
      timestamp: new Date().toISOString(),
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

/**
 * Every state-changing call the page made carried the bearer token (CSRF: a cookie alone never
 * suffices). Sign-in and the refresh are the two calls that cannot: they make the token.
 */
export function expectBearerOnChanges(g: GuardedPage): void {
  const changes = g.requests.filter(
    (r) => r.method !== "GET" && !["/api/auth/login", "/api/auth/refresh"].includes(r.url.pathname),
  );
  expect(changes.length).toBeGreaterThan(0);
  for (const r of changes)
    expect(r.headers.authorization, `${r.method} ${r.url.pathname}`).toMatch(/^Bearer \S+$/);
}
