import { codeAt } from "../../../testing/fixtures/two-factor-fixtures.ts";
import type { TestServer } from "../../../testing/harness.ts";
import type { Deployment } from "./fill-deployment.ts";

/** One GET's answer as compared: status, headers, and the body (parsed JSON, or its exact bytes). */
export type Answer = { status: number; headers: Record<string, string>; body: unknown };

/** A logged-in user of the site: the label its answers are filed under, and its access token. */
export type Caller = { role: string; token: string };

/** The instants the telemetry and record queries are bounded by: the same on both servers. */
export type Window = { from: string; to: string };

/**
 * Headers that differ between any two answers, whatever stores the data: the instant it was
 * sent and the id given to each request. Every other header is compared.
 */
const PER_REQUEST_HEADERS = new Set(["date", "x-request-id"]);

/**
 * A preview is built when it is asked for: its as_of and the generated_at of the report it
 * previews are that instant. Everything else in it is compared.
 */
function withoutAskedAt(body: { as_of?: string; content?: { report?: { generated_at?: string } } }) {
  delete body.as_of;
  delete body.content?.report?.generated_at;
}

/** GET `path` as `token`: JSON parsed (compared deep equal), anything else as its exact bytes. */
async function answer(t: TestServer, path: string, token: string): Promise<Answer> {
  const res = await fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !PER_REQUEST_HEADERS.has(name)));
  const json = headers["content-type"]?.includes("application/json") && !path.endsWith("/download");
  if (json) {
    // Deep equality, not bytes: the length may only differ if the keys came in another order.
    delete headers["content-length"];
    const body = bytes.length ? JSON.parse(bytes.toString("utf8")) : null;
    if (path.startsWith("/api/anh/reports/preview?") && res.status === 200) withoutAskedAt(body);
    return { status: res.status, headers, body };
  }
  // latin1 maps each byte to one character: equal strings, equal bytes (CSV, the report file).
  return { status: res.status, headers, body: bytes.toString("latin1") };
}

/**
 * Logs the site's users in: the superadmin, the two-factor operador (with the TOTP code of the
 * server's current step, which must be later than the last one the user spent) and the ANH reader.
 * Returns them with their login answers, freshly issued tokens left out.
 */
export async function logIn(
  t: TestServer,
  site: Deployment,
): Promise<{ callers: Caller[]; logins: Record<string, unknown> }> {
  const none: Record<string, string> = {};
  const users = [
    { role: "superadmin", ...site.admin, extra: none },
    { role: "operador", ...site.operator, extra: { totp_code: codeAt(t, site.operator.secret) } },
    { role: "anh_reader", ...site.reader, extra: none },
  ];
  const callers: Caller[] = [];
  const logins: Record<string, unknown> = {};
  for (const user of users) {
    const res = await t.login(user.email, user.password, user.extra);
    if (res.status !== 200) throw new Error(`login of ${user.role}: ${res.status} ${res.text}`);
    callers.push({ role: user.role, token: res.body.token });
    // A new session's tokens, never the same twice.
    const { token: _, access_token: __, ...rest } = res.body;
    logins[user.role] = rest;
  }
  return { callers, logins };
}

const ids = (body: unknown): string[] =>
  Array.isArray(body) ? body.map((item: { id: string }) => item.id) : [];

/**
 * The site's GET endpoints with their ids found through the API as the superadmin: the project
 * and its tree, assets, devices, variables, alert rules, alarms (list, history in JSON and CSV),
 * records of every kind (corrections listed with what they supersede), telemetry (latest in JSON
 * and CSV, history at 5m, 1h and 1d), ANH reports (list, detail, file, hash, a day's preview),
 * billing, the audit log and its verification, users, the dashboard and the agent endpoints.
 *
 * Left out: /health (the server's start time and its store's engine), /metrics (this process's
 * counters) and /docs (no data).
 */
async function sitePaths(t: TestServer, admin: string, site: Deployment, window: Window): Promise<string[]> {
  const p = site.projectId;
  const span = `from=${window.from}&to=${window.to}`;
  const paths = [
    "/api/auth/setup/status",
    "/api/edge/projects",
    `/api/edge/projects/${p}`,
    `/api/edge/projects/${p}/full`,
    `/api/edge/projects/${p}/assets`,
    `/api/tanks?project_id=${p}`,
    `/api/alert-rules?project_id=${p}`,
    `/api/alarms?project_id=${p}`,
    `/api/alarms/history?project_id=${p}&limit=10000`,
    `/api/alarms/history?project_id=${p}&limit=10000&format=csv`,
    ...["movements", "downtime", "well-tests", "lab-results", "meters/readings"].flatMap((kind) => [
      `/api/${kind}?project_id=${p}&limit=10000`,
      `/api/${kind}?${span}`,
    ]),
    `/api/anh/reports?project_id=${p}`,
    `/api/anh/reports/${site.reportId}`,
    `/api/anh/reports/${site.reportId}/download`,
    `/api/anh/reports/${site.reportId}/hash`,
    `/api/billing/invoices?project_id=${p}`,
    `/api/billing/usage?project_id=${p}`,
    "/api/billing/admin/summary",
    "/api/audit?limit=1000",
    `/api/audit?project_id=${p}&limit=1000`,
    `/api/audit?entity=project&entity_id=${p}`,
    "/api/audit/verify",
    "/api/admin/users",
    "/api/admin/roles",
    "/api/dashboard/summary",
    `/api/edge/projects/${p}/enrollment-codes`,
    `/api/edge/projects/${p}/mqtt-credentials`,
    `/api/edge/projects/${p}/deployments`,
    `/api/edge/agents/${p}/health`,
    `/api/edge/agents/logs?project_id=${p}`,
  ];
  const list = async (path: string) => ids((await answer(t, path, admin)).body);
  for (const user of await list("/api/admin/users")) paths.push(`/api/admin/users/${user}`);
  const report = (await answer(t, `/api/anh/reports/${site.reportId}`, admin)).body as {
    report_date: string;
  };
  paths.push(`/api/anh/reports/preview?project_id=${p}&date=${report.report_date}`);
  for (const asset of await list(`/api/edge/projects/${p}/assets`)) {
    paths.push(
      `/api/edge/assets/${asset}`,
      `/api/edge/assets/${asset}/devices`,
      `/api/telemetry/${asset}?limit=10000`,
      `/api/telemetry/${asset}?limit=10000&variable=pressure`,
      `/api/telemetry/${asset}?format=csv&${span}`,
      `/api/telemetry/${asset}?format=csv&limit=50`,
      ...["5m", "1h", "1d"].map((interval) => `/api/telemetry/${asset}/history?interval=${interval}&${span}`),
      `/api/audit?entity=asset&entity_id=${asset}`,
    );
    for (const device of await list(`/api/edge/assets/${asset}/devices`)) {
      paths.push(`/api/edge/devices/${device}`, `/api/edge/devices/${device}/variables`);
      for (const variable of await list(`/api/edge/devices/${device}/variables`)) {
        paths.push(`/api/edge/variables/${variable}`);
      }
    }
  }
  return paths;
}

/**
 * Every caller's answer to every GET of sitePaths, keyed "<role> GET <path>". Paths a role may
 * not read are asked too: their 403 and 404 must stay the same.
 */
export async function apiAnswers(
  t: TestServer,
  callers: Caller[],
  site: Deployment,
  window: Window,
): Promise<Record<string, Answer>> {
  const admin = callers.find((c) => c.role === "superadmin");
  if (!admin) throw new Error("no superadmin among the callers");
  const paths = await sitePaths(t, admin.token, site, window);
  const out: Record<string, Answer> = {};
  for (const caller of callers) {
    for (const path of paths) out[`${caller.role} GET ${path}`] = await answer(t, path, caller.token);
  }
  return out;
}
