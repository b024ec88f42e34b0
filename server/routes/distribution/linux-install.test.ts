import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shellcheckMissing } from "../../../scripts/testing/peers.ts";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import type { AgentBuildManifest } from "../../../shared/distribution/agent-manifest.ts";
import { writeAgentDistFixture } from "../../testing/agent-dist-fixture.ts";
import { auditOf, expectError } from "../../testing/fixtures/field-fixtures.ts";
import { type ApiResponse, TestServer } from "../../testing/harness.ts";

const shellcheck = requirePeer("shellcheck", shellcheckMissing);
const UNIT = readFileSync(
  fileURLToPath(new URL("../../../systemd/caudal-agent.service", import.meta.url)),
  "utf8",
);

type Listed = { id: string; purpose: string; status: string };

/** The value of `NAME='…'` in a served script (the values the server puts there have no quote). */
function variable(script: string, name: string): string | undefined {
  return new RegExp(`^${name}='([^']*)'$`, "m").exec(script)?.[1];
}

/** The text of the here-document that ends with `delimiter`. */
function hereDocument(script: string, delimiter: string): string | undefined {
  return new RegExp(`<<'${delimiter}'\\n([\\s\\S]*?)\\n${delimiter}\\n`).exec(script)?.[1];
}

/** GET /api/edge/projects/{id}/linux-install (issue 10 §3): a script per project, a code per download. */
describe("GET /api/edge/projects/{id}/linux-install", () => {
  let t: TestServer;
  let admin: string;
  let project: string;
  let other: string;
  let supervisor: { id: string; token: string };
  let manifest: AgentBuildManifest;
  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.admin()).token;
    project = await t.project();
    other = await t.project();
    supervisor = await t.userWithRole("supervisor", [project]);
  });
  afterAll(async () => t.stop());

  const path = (id: string) => `/api/edge/projects/${id}/linux-install`;
  const download = (id: string, token?: string) => t.request<string>(path(id), token ? { token } : {});
  const codesOf = async (id: string) =>
    (await t.request<Listed[]>(`/api/edge/projects/${id}/enrollment-codes`, { token: admin })).body;

  it("503 AgentNotBuilt, without Retry-After (nothing builds it), while no Linux binary was built, and no code is issued", async () => {
    const res = (await download(project, supervisor.token)) as ApiResponse;
    expectError(res, 503, "AgentNotBuilt");
    expect(res.headers.get("retry-after")).toBeNull();
    expect(res.text).toContain("npm run build:agent");
    expect(await codesOf(project)).toEqual([]);
    // Only the Windows executable built: still nothing for Linux.
    writeAgentDistFixture(t.config.AGENT_DIST_DIR, { targets: ["windows-x64"] });
    expectError((await download(project, supervisor.token)) as ApiResponse, 503, "AgentNotBuilt");
    manifest = writeAgentDistFixture(t.config.AGENT_DIST_DIR);
  });

  it("401 without a token or with a bad one", async () => {
    expectError((await download(project)) as ApiResponse, 401, "Unauthorized");
    expectError((await download(project, "not-a-jwt")) as ApiResponse, 401, "Unauthorized");
  });

  it("403 for operador and anh_reader", async () => {
    for (const role of ["operador", "anh_reader"] as const) {
      const { token } = await t.userWithRole(role, [project]);
      expectError((await download(project, token)) as ApiResponse, 403, "Forbidden");
    }
  });

  it("404 for an unknown project and one the supervisor is not assigned to; 400 for a bad id", async () => {
    expectError((await download(randomUUID(), admin)) as ApiResponse, 404, "NotFound");
    expectError((await download(other, supervisor.token)) as ApiResponse, 404, "NotFound");
    expectError((await download("not-a-uuid", admin)) as ApiResponse, 400, "ValidationFailed", "id");
    expect(await codesOf(other)).toEqual([]);
  });

  it("a POSIX sh script with the server URL, the project, a code, the checksums, the config and the unit", async () => {
    const res = await download(project, supervisor.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/x-shellscript; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="caudal-agent-install.sh"');
    // It carries a credential: never cached.
    expect(res.headers.get("cache-control")).toBe("no-store");
    const script = res.text;
    expect(script.startsWith("#!/bin/sh\n")).toBe(true);
    expect(script).not.toMatch(/@[A-Z][A-Z0-9_]*@/);
    const sha = (target: string) => manifest.artifacts.find((a) => a.target === target)?.sha256;
    const code = variable(script, "CAUDAL_ENROLLMENT_CODE");
    expect({
      url: variable(script, "CAUDAL_SERVER_URL"),
      project: variable(script, "CAUDAL_PROJECT_ID"),
      code,
      version: variable(script, "CAUDAL_AGENT_VERSION"),
      x86: variable(script, "CAUDAL_SHA256_X86_64"),
      arm: variable(script, "CAUDAL_SHA256_AARCH64"),
    }).toEqual({
      url: t.baseUrl,
      project,
      code: expect.stringMatching(/^cen_[A-Za-z0-9_-]{20,}$/),
      version: "1.0.0-fixture (commit 0123456789ab)",
      x86: sha("linux-x86_64"),
      arm: sha("linux-aarch64"),
    });
    expect(JSON.parse(hereDocument(script, "CAUDAL_END_CONFIG") ?? "")).toEqual({
      version: 1,
      server_url: t.baseUrl,
      project_id: project,
      enrollment_code: code,
      data_dir: "/var/lib/caudal-agent",
    });
    expect(hereDocument(script, "CAUDAL_END_UNIT")).toBe(UNIT.replace(/\n+$/, ""));
  });

  it("each download issues a fresh code, audited as the caller's, that enrolls an agent", async () => {
    const before = (await codesOf(project)).length;
    const first = variable((await download(project, supervisor.token)).text, "CAUDAL_ENROLLMENT_CODE");
    const second = variable((await download(project, admin)).text, "CAUDAL_ENROLLMENT_CODE");
    expect(first).not.toBe(second);
    const codes = await codesOf(project);
    expect(codes).toHaveLength(before + 2);
    expect(codes.slice(0, 2)).toEqual([
      expect.objectContaining({ purpose: "linux_script", status: "active" }),
      expect.objectContaining({ purpose: "linux_script", status: "active" }),
    ]);
    const created = await auditOf(t, codes[1]?.id ?? "");
    expect(created).toEqual([expect.objectContaining({ action: "create", user_id: supervisor.id })]);
    expect(JSON.stringify(created)).not.toContain(first);
    const enrolled = await t.request<{ project_id: string }>("/api/edge/agents/enroll", {
      body: { code: first },
    });
    expect(enrolled.status).toBe(200);
    expect(enrolled.body.project_id).toBe(project);
  });

  it("an architecture that was not built gets an empty checksum, which the script reports", async () => {
    writeAgentDistFixture(t.config.AGENT_DIST_DIR, { targets: ["linux-x86_64"] });
    try {
      const script = (await download(project, supervisor.token)).text;
      expect(variable(script, "CAUDAL_SHA256_AARCH64")).toBe("");
      expect(variable(script, "CAUDAL_SHA256_X86_64")).toMatch(/^[0-9a-f]{64}$/);
    } finally {
      manifest = writeAgentDistFixture(t.config.AGENT_DIST_DIR);
    }
  });

  shellcheck.it("is clean under shellcheck as POSIX sh", async () => {
    const script = (await download(project, supervisor.token)).text;
    const lint = spawnSync("shellcheck", ["--shell=sh", "--severity=style", "-"], {
      input: script,
      encoding: "utf8",
    });
    expect(lint.stdout + lint.stderr).toBe("");
    expect(lint.status).toBe(0);
  });

  it("names PUBLIC_URL, when configured, rather than the URL the request came in on", async () => {
    const pub = await TestServer.start({ PUBLIC_URL: "https://caudal.example.com/" });
    try {
      writeAgentDistFixture(pub.config.AGENT_DIST_DIR, { targets: ["linux-x86_64"], bytes: 1000 });
      const id = await pub.project();
      const script = (await pub.request<string>(path(id), { token: (await pub.admin()).token })).text;
      expect(variable(script, "CAUDAL_SERVER_URL")).toBe("https://caudal.example.com");
      expect(JSON.parse(hereDocument(script, "CAUDAL_END_CONFIG") ?? "").server_url).toBe(
        "https://caudal.example.com",
      );
    } finally {
      await pub.stop();
    }
  });
});
