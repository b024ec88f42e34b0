import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditOf, expectError } from "../../../testing/fixtures/field-fixtures.ts";
import {
  buildPath,
  buildStatusPath,
  emptyAgentDist,
  installerPath,
  type Queued,
  rebuildPath,
  waitForBuild,
} from "../../../testing/fixtures/installer-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";
import { tableProbe } from "../../../testing/table-probe.ts";

/**
 * Who may build and download a project's MSI, and the answers to bad requests (issue 10 §3: supervisor
 * and above for their projects). No agent build here: builds fail at once, which is all these need.
 */
describe("installer routes: access and validation", () => {
  let t: TestServer;
  let admin: string;
  let project: string;
  let other: string;
  let operador: string;
  let reader: string;
  let supervisor: { id: string; token: string };
  let otherBuild: string;
  beforeAll(async () => {
    t = await TestServer.start({ AGENT_DIST_DIR: emptyAgentDist() });
    admin = (await t.admin()).token;
    project = await t.project();
    other = await t.project();
    operador = (await t.userWithRole("operador", [project])).token;
    reader = (await t.userWithRole("anh_reader", [project])).token;
    supervisor = await t.userWithRole("supervisor", [project]);
    otherBuild = (await t.request<Queued>(buildPath(other), { method: "POST", token: admin })).body.build_id;
  });
  afterAll(async () => t.stop());

  const call = (method: string, path: string, token?: string) =>
    t.request(path, { method, ...(token ? { token } : {}) });

  const routes: [string, string, (id: string) => string][] = [
    ["installer", "GET", installerPath],
    ["build", "POST", buildPath],
    ["rebuild", "POST", rebuildPath],
    ["build status", "GET", (id) => buildStatusPath(id, randomUUID())],
  ];
  for (const [label, method, path] of routes) {
    it(`${label}: 401 without a token or with a bad one`, async () => {
      expectError(await call(method, path(project)), 401, "Unauthorized");
      expectError(await call(method, path(project), "not-a-jwt"), 401, "Unauthorized");
    });

    it(`${label}: 403 for operador and anh_reader, and nothing is queued`, async () => {
      const before = await auditCount();
      expectError(await call(method, path(project), operador), 403, "Forbidden");
      expectError(await call(method, path(project), reader), 403, "Forbidden");
      expect(await auditCount()).toBe(before);
    });

    it(`${label}: 404 for an unknown project and for one the supervisor is not assigned to`, async () => {
      expectError(await call(method, path(randomUUID()), admin), 404, "NotFound");
      expectError(await call(method, path(other), supervisor.token), 404, "NotFound");
    });

    it(`${label}: 400 naming the project id when it is not a UUID`, async () => {
      const field = label === "build" ? "project_id" : "id";
      expectError(await call(method, path("nope"), admin), 400, "ValidationFailed", field);
      expectError(await call(method, path("..%2F..%2Fetc"), admin), 400, "ValidationFailed", field);
    });
  }

  const auditCount = () => tableProbe(t.server).count("audit_log");

  it("build status: 400 naming build_id when it is not a UUID; 404 for an unknown build and for another project's", async () => {
    expectError(
      await call("GET", buildStatusPath(project, "nope"), admin),
      400,
      "ValidationFailed",
      "build_id",
    );
    const unknown = await call("GET", buildStatusPath(project, randomUUID()), admin);
    expectError(unknown, 404, "NotFound");
    expect((unknown.body as { message: string }).message).toBe("installer build not found");
    expectError(await call("GET", buildStatusPath(project, otherBuild), admin), 404, "NotFound");
  });

  it("a supervisor of the project may queue and follow builds; queuing is audited under the supervisor", async () => {
    for (const path of [installerPath(project), buildPath(project), rebuildPath(project)]) {
      const res = await t.request<Queued>(path, {
        method: path.endsWith("installer") ? "GET" : "POST",
        token: supervisor.token,
      });
      expect(res.status, path).toBe(202);
      expect(res.body).toEqual({
        build_id: expect.any(String),
        status: expect.stringMatching(/^(queued|running|failed)$/),
      });
      const { build } = await waitForBuild(t, supervisor.token, project, res.body.build_id);
      expect(build.project_id).toBe(project);
      expect(build.rebuild).toBe(path.endsWith("rebuild"));
      const [entry] = await auditOf(t, build.id);
      expect(entry).toMatchObject({
        entity: "installer_build",
        action: "create",
        user_id: supervisor.id,
        project_id: project,
      });
      expect(JSON.parse(entry?.after ?? "{}")).toMatchObject({
        status: "queued",
        rebuild: path.endsWith("rebuild"),
      });
    }
  });

  it("an admin sees every project's builds; the server URL is the one the request came in on", async () => {
    const res = await t.request<Queued>(buildPath(other), { method: "POST", token: admin });
    const { build } = await waitForBuild(t, admin, other, res.body.build_id);
    expect(build.server_url).toBe(t.baseUrl);
  });
});
