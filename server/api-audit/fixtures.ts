import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { AGENT_MANIFEST_FILE } from "../../shared/distribution/agent-manifest.ts";
import { writeAgentDistFixture } from "../testing/agent-dist-fixture.ts";
import { type ApiResponse, TestServer } from "../testing/harness.ts";
import { apiOperations, fetchDocument, type Operation, segmentBefore } from "./openapi-model.ts";
import type { IdSource } from "./requests.ts";

export const ASSET_TYPES = ["well", "tank", "pipeline", "station", "meter"] as const;

/** The kinds of resource an id can name; the audit maps every id slot of the document to one. */
export type Kind =
  | "project"
  | "asset"
  | "meter"
  | "device"
  | "variable"
  | "rule"
  | "alarm"
  | "report"
  | "invoice"
  | "user"
  | "enrollment_code"
  | "installer_build"
  | "mqttCredential";

/**
 * The audits' server. Its AGENT_DIST_DIR holds only small stand-in Linux binaries (buildTree writes
 * them) and no WinSW, so an installer build the audit queues fails at once instead of running wixl
 * while the audits compare database snapshots.
 */
export function startAuditServer(): Promise<TestServer> {
  return TestServer.start({ AGENT_DIST_DIR: mkdtempSync(join(tmpdir(), "caudal-audit-no-agent-")) });
}

/** A project with one of everything, all made through the API as the superadmin. */
export type ProjectTree = {
  label: string;
  /** A string in every name, note and message of the tree: finding it in a response is a leak. */
  marker: string;
  projectId: string;
  assets: Record<(typeof ASSET_TYPES)[number], string>;
  deviceId: string;
  variableId: string;
  ruleId: string;
  alarmId: string;
  records: { movement: string; downtime: string; wellTest: string; labResult: string; meterReading: string };
  reportId: string;
  reportDate: string;
  deploymentId: string;
  logId: string;
  invoiceId: string;
  enrollmentCodeId: string;
  /** A finished (failed: the audits have no agent build) installer build. */
  installerBuildId: string;
  mqttCredentialId: string;
  /** An operador assigned to this project only. */
  userId: string;
  /** Every UUID that appeared in a response while the tree was built. */
  seenIds: Set<string>;
};

const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const DAY = 86_400_000;

export function uuidsIn(text: string): string[] {
  return (text.match(UUID_IN_TEXT) ?? []).map((s) => s.toLowerCase());
}

/** The production day the fixtures report on: three UTC days ago, closed in every zone. */
export function reportDay(nowMs: number): { date: string; noon: string } {
  const date = new Date(nowMs - 3 * DAY).toISOString().slice(0, 10);
  return { date, noon: `${date}T17:00:00.000Z` };
}

export async function buildTree(t: TestServer, label: string): Promise<ProjectTree> {
  // Small agent binaries for the distribution endpoints, once per server (written synchronously,
  // so two trees built concurrently do not both write them).
  const dist = t.config.AGENT_DIST_DIR;
  if (!existsSync(join(dist, AGENT_MANIFEST_FILE))) writeAgentDistFixture(dist);
  const token = (await t.admin()).token;
  const marker = `audit${label}${randomUUID().slice(0, 8)}`;
  const seenIds = new Set<string>();
  const call = async <T>(path: string, body?: unknown, method?: string, ok = [200, 201]): Promise<T> => {
    const res: ApiResponse<T> = await t.request<T>(path, { token, body, ...(method ? { method } : {}) });
    if (!ok.includes(res.status))
      throw new Error(`fixture ${method ?? "POST"} ${path}: ${res.status} ${res.text}`);
    for (const id of uuidsIn(res.text)) seenIds.add(id);
    return res.body;
  };
  const created = (path: string, body?: unknown, method?: string) => call<{ id: string }>(path, body, method);

  const project = await created("/api/edge/projects", {
    name: `${marker} project`,
    description: `${marker} description`,
    location: `${marker} location`,
    // No automatic deployment lands between the database snapshots the audits compare.
    auto_deploy: false,
  });
  const projectId = project.id;
  const assets: ProjectTree["assets"] = { well: "", tank: "", pipeline: "", station: "", meter: "" };
  await Promise.all(
    ASSET_TYPES.map(async (asset_type) => {
      const body = { project_id: projectId, name: `${marker}-${asset_type}`, asset_type };
      assets[asset_type] = (await created("/api/edge/assets", body)).id;
    }),
  );
  const device = await created(`/api/edge/assets/${assets.well}/devices`, {
    name: `${marker}-plc`,
    protocol: "modbus_tcp",
    host: "10.20.0.15",
    port: 502,
    slave_id: 1,
  });
  const variable = await created(`/api/edge/devices/${device.id}/variables`, {
    alias: "pressure",
    data_type: "float",
    register_address: 0,
    unit: "psi",
  });
  const rule = await created("/api/alert-rules", {
    project_id: projectId,
    name: `${marker}-rule`,
    variable_alias: "pressure",
    condition: "gt",
    threshold: 100,
    severity: "warning",
  });
  const now = t.clock.now().getTime();
  await call("/api/telemetry", {
    asset_id: assets.well,
    timestamp: new Date(now - 3_600_000).toISOString(),
    readings: [{ variable: "pressure", value: 150, unit: "psi" }],
  });
  // The alarm engine stores the reading's alarm after the ingest answers.
  await t.server.alarms.settled();
  const alarms = await call<{ id: string; rule_id: string | null }[]>(
    `/api/alarms?project_id=${projectId}`,
    undefined,
    "GET",
  );
  const alarm = alarms.find((a) => a.rule_id === rule.id);
  if (!alarm) throw new Error(`fixture: the reading above the rule raised no alarm in ${label}`);

  const day = reportDay(now);
  const [movement, downtime, wellTest, labResult, meterReading] = await Promise.all([
    created("/api/movements", {
      project_id: projectId,
      movement_type: "production",
      volume_bbls: 100,
      timestamp: day.noon,
      notes: `${marker} movement`,
    }),
    created("/api/downtime", { project_id: projectId, reason: `${marker} downtime`, started_at: day.noon }),
    created("/api/well-tests", {
      project_id: projectId,
      asset_id: assets.well,
      test_date: day.noon,
      oil_rate_bopd: 10,
    }),
    created("/api/lab-results", { project_id: projectId, sample_date: day.noon, api_gravity: 20 }),
    created("/api/meters/readings", {
      project_id: projectId,
      meter_id: assets.meter,
      reading_value: 1000,
      read_at: day.noon,
      unit: "bbl",
    }),
  ]);
  const report = await created("/api/anh/reports/generate", { project_id: projectId, report_date: day.date });
  const deployment = await created(`/api/edge/projects/${projectId}/deploy`, undefined, "POST");
  const log = await created("/api/edge/agents/logs", {
    project_id: projectId,
    level: "warn",
    message: `${marker} log`,
    category: "audit",
  });
  // A new project is on starter and its first invoice is issued; this changes its plan.
  await call(`/api/billing/admin/subscriptions/${projectId}`, { plan: "professional" }, "PUT");
  const [invoice] = await call<{ id: string }[]>(
    `/api/billing/invoices?project_id=${projectId}`,
    undefined,
    "GET",
  );
  if (!invoice) throw new Error(`fixture: no invoice issued for ${label}`);
  await call("/api/billing/snapshots", { project_id: projectId });
  const enrollmentCode = await created(`/api/edge/projects/${projectId}/enrollment-codes`, {});
  const build = await call<{ build_id: string }>(
    `/api/edge/projects/${projectId}/build`,
    undefined,
    "POST",
    [202],
  );
  // Finished before the audits start: nothing changes under their database snapshots.
  for (let status = ""; status !== "failed"; ) {
    const res = await t.request<{ status: string }>(
      `/api/edge/projects/${projectId}/builds/${build.build_id}`,
      {
        token,
      },
    );
    status = res.body.status;
    if (status === "succeeded") throw new Error("fixture: an installer build succeeded with no agent build");
    if (status !== "failed") await new Promise((r) => setTimeout(r, 20));
  }
  const credential = await created(`/api/edge/projects/${projectId}/mqtt-credentials`, {
    name: `${marker} hmi`,
  });
  const user = await t.userWithRole("operador", [projectId]);
  seenIds.add(user.id);

  return {
    label,
    marker,
    projectId,
    assets,
    deviceId: device.id,
    variableId: variable.id,
    ruleId: rule.id,
    alarmId: alarm.id,
    records: {
      movement: movement.id,
      downtime: downtime.id,
      wellTest: wellTest.id,
      labResult: labResult.id,
      meterReading: meterReading.id,
    },
    reportId: report.id,
    reportDate: day.date,
    deploymentId: deployment.id,
    logId: log.id,
    invoiceId: invoice.id,
    enrollmentCodeId: enrollmentCode.id,
    installerBuildId: build.build_id,
    mqttCredentialId: credential.id,
    userId: user.id,
    seenIds,
  };
}

export function idOfKind(tree: ProjectTree, kind: Kind): string {
  switch (kind) {
    case "project":
      return tree.projectId;
    case "asset":
      return tree.assets.well;
    case "meter":
      return tree.assets.meter;
    case "device":
      return tree.deviceId;
    case "variable":
      return tree.variableId;
    case "rule":
      return tree.ruleId;
    case "alarm":
      return tree.alarmId;
    case "report":
      return tree.reportId;
    case "invoice":
      return tree.invoiceId;
    case "user":
      return tree.userId;
    case "enrollment_code":
      return tree.enrollmentCodeId;
    case "installer_build":
      return tree.installerBuildId;
    case "mqttCredential":
      return tree.mqttCredentialId;
  }
}

/** The kind a body field or query parameter names, or undefined when it names none. */
export function kindOfField(name: string): Kind | undefined {
  const byName: Record<string, Kind> = {
    project_id: "project",
    project_ids: "project",
    asset_id: "asset",
    meter_id: "meter",
    device_id: "device",
    variable_id: "variable",
    rule_id: "rule",
    alarm_id: "alarm",
    report_id: "report",
    invoice_id: "invoice",
    user_id: "user",
    credential_id: "mqttCredential",
  };
  return byName[name];
}

/** The kind a path parameter names: by its own name (`asset_id`), else by the segment before it. */
export function kindOfPathParam(path: string, name: string): Kind {
  const own = kindOfField(name);
  if (own) return own;
  const bySegment: Record<string, Kind> = {
    projects: "project",
    assets: "asset",
    devices: "device",
    variables: "variable",
    users: "user",
    "alert-rules": "rule",
    alarms: "alarm",
    reports: "report",
    invoices: "invoice",
    "enrollment-codes": "enrollment_code",
    builds: "installer_build",
  };
  const kind = bySegment[segmentBefore(path, name)];
  // A new endpoint whose path names something the fixtures do not build: teach the audit about it.
  if (!kind) throw new Error(`the audit has no fixture for path parameter ${name} of ${path}`);
  return kind;
}

/** Ids from `tree` for every slot; `supersedes` (an optional correction link) gets an unknown id. */
export function idSource(tree: ProjectTree, nowMs: number): IdSource {
  return {
    nowMs,
    idFor(name) {
      if (name === "supersedes") return randomUUID();
      const kind = kindOfField(name);
      if (!kind) throw new Error(`the audit has no fixture for id field ${name}`);
      return idOfKind(tree, kind);
    },
    pathId: (path, name) => idOfKind(tree, kindOfPathParam(path, name)),
  };
}

/** The audit server, its document's operations, and the superadmin's token and ids of tree "A". */
export type AuditSetup = {
  t: TestServer;
  operations: Operation[];
  /** Set by a beforeAll: read it inside tests, not while they are collected. */
  readonly token: string;
  /** Set by a beforeAll, as the token. */
  readonly ids: IdSource;
};

/**
 * The setup the whole-API audits share: the server and its operations at once (describe.each
 * needs them to collect), the superadmin's token and tree "A" before the tests, the stop after.
 */
export async function auditSetup(): Promise<AuditSetup> {
  const t = await startAuditServer();
  const operations = apiOperations(await fetchDocument(t));
  let token: string | undefined;
  let ids: IdSource | undefined;
  beforeAll(async () => {
    token = (await t.admin()).token;
    ids = idSource(await buildTree(t, "A"), t.clock.now().getTime());
  }, 60_000);
  afterAll(() => t.stop());
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`auditSetup: ${what} is read before beforeAll set it`);
    return value;
  };
  return {
    t,
    operations,
    get token() {
      return ready(token, "the token");
    },
    get ids() {
      return ready(ids, "ids");
    },
  };
}
