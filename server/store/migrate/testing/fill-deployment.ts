import { createDevice, createVariable } from "../../../testing/fixtures/field-fixtures.ts";
import { twoFactorUser } from "../../../testing/fixtures/two-factor-fixtures.ts";
import type { TestServer } from "../../../testing/harness.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const iso = (ms: number) => new Date(ms).toISOString();

type Login = { email: string; password: string };

/** What fillDeployment made, for the checks after migrating; who can log in. */
export type Deployment = {
  projectId: string;
  reportId: string;
  reportHash: string;
  admin: Login;
  /** An operador of the project, with two-factor: its TOTP secret. */
  operator: Login & { secret: string };
  /** An anh_reader of the project. */
  reader: Login;
};

async function ok<T>(
  t: TestServer,
  path: string,
  options: Parameters<TestServer["request"]>[1],
  status: number,
) {
  const res = await t.request<T>(path, options);
  if (res.status !== status)
    throw new Error(`${options?.method ?? "POST"} ${path}: ${res.status} ${res.text}`);
  return res.body;
}

/**
 * Fills a site through its API as people and agents would: a project with an operador using
 * two-factor and an ANH reader assigned to it, a well, a meter, a device and variables, an alert
 * rule, four days of telemetry every 5 minutes (raising and clearing alarms, one acknowledged),
 * the older days packed into blocks, records with a correction, an ANH report, the project's
 * invoice marked paid. Every change is audited.
 */
export async function fillDeployment(t: TestServer): Promise<Deployment> {
  const { token: admin, email, password } = await t.admin();
  const operator = await twoFactorUser(t);
  const projectId = await t.project();
  await ok(
    t,
    `/api/admin/users/${operator.id}/projects`,
    { method: "PUT", token: admin, body: { project_ids: [projectId] } },
    200,
  );
  const reader = await t.userWithRole("anh_reader", [projectId]);
  const well = await t.asset(projectId, "well");
  const meter = await t.asset(projectId, "meter");
  const device = await createDevice(t, well);
  await createVariable(t, device, { alias: "pressure", unit: "psi" });
  await createVariable(t, device, { alias: "temperature", unit: "degF" });
  await ok(
    t,
    "/api/alert-rules",
    {
      token: admin,
      body: {
        project_id: projectId,
        name: "High pressure",
        variable_alias: "pressure",
        condition: "gt",
        threshold: 140,
        severity: "warning",
      },
    },
    201,
  );

  // Four days up to an hour ago, every 5 minutes: pressure swings across the rule's threshold.
  const now = t.clock.now().getTime();
  const end = now - HOUR;
  const start = Math.floor((end - 4 * DAY) / HOUR) * HOUR;
  for (let from = start; from < end; from += DAY) {
    const items = [];
    for (let ts = from; ts < Math.min(from + DAY, end); ts += 5 * MINUTE) {
      const i = (ts - start) / (5 * MINUTE);
      items.push({
        asset_id: well,
        timestamp: iso(ts),
        readings: [
          { variable: "pressure", value: 100 + 50 * Math.sin(i / 7) },
          { variable: "temperature", value: 80 + (i % 13) / 8 },
        ],
      });
    }
    await ok(t, "/api/telemetry/batch", { token: admin, body: { items } }, 201);
  }
  // Days before yesterday (UTC) become packed blocks; the rest stays raw rows.
  const packed = await t.server.telemetry.runPacking(Math.floor(now / DAY) * DAY - DAY);
  if (packed.blocks === 0) throw new Error("nothing was packed");

  const alarms = await ok<{ id: string }[]>(
    t,
    `/api/alarms?project_id=${projectId}`,
    { method: "GET", token: admin },
    200,
  );
  const [alarm] = alarms;
  if (!alarm) throw new Error("the telemetry raised no alarm");
  await ok(t, `/api/alarms/${alarm.id}/ack`, { method: "POST", token: admin }, 200);

  const record = (path: string, body: Record<string, unknown>) =>
    ok<{ id: string }>(t, `/api/${path}`, { token: admin, body: { project_id: projectId, ...body } }, 201);
  const day = start + DAY;
  const movement = await record("movements", {
    movement_type: "production",
    volume_bbls: 999,
    timestamp: iso(day + 8 * HOUR),
  });
  await record("movements", {
    movement_type: "production",
    volume_bbls: 300.5,
    timestamp: iso(day + 8 * HOUR),
    supersedes: movement.id,
    correction_reason: "typo in the ticket",
  });
  await record("downtime", {
    reason: "pump failure",
    started_at: iso(day + 2 * HOUR),
    ended_at: iso(day + 3 * HOUR),
  });
  await record("meters/readings", {
    meter_id: meter,
    reading_value: 1000,
    read_at: iso(day + HOUR),
    unit: "bbl",
  });
  await record("meters/readings", {
    meter_id: meter,
    reading_value: 1250.5,
    read_at: iso(day + 20 * HOUR),
    unit: "bbl",
  });

  // The production day (America/Bogota) that holds `day`'s noon.
  const reportDate = iso(day + 12 * HOUR).slice(0, 10);
  const report = await ok<{ id: string; hash_sha384: string }>(
    t,
    "/api/anh/reports/generate",
    {
      token: admin,
      body: { project_id: projectId, report_date: reportDate },
    },
    201,
  );

  const [invoice] = await ok<{ id: string }[]>(
    t,
    `/api/billing/invoices?project_id=${projectId}`,
    { method: "GET", token: admin },
    200,
  );
  if (!invoice) throw new Error("the project has no invoice");
  await ok(
    t,
    `/api/billing/invoices/${invoice.id}/status`,
    { method: "PATCH", token: admin, body: { status: "paid" } },
    200,
  );

  return {
    projectId,
    reportId: report.id,
    reportHash: report.hash_sha384,
    admin: { email, password },
    operator: { email: operator.email, password: operator.password, secret: operator.secret },
    reader: { email: reader.email, password: reader.password },
  };
}
