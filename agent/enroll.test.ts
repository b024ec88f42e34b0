import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../scripts/testing/free-port.ts";
import { TestServer } from "../server/testing/harness.ts";
import { type AgentFileConfig, agentFileConfigSchema } from "../shared/mqtt/agent-file-config.ts";
import { AgentLog } from "./agent-log.ts";
import { agentCredentials, EnrollmentRefused } from "./enroll.ts";
import { readTokenFile, tokenFilePath, writeTokenFile } from "./token-file.ts";

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "caudal-enroll-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const capture = () => {
  const lines: string[] = [];
  return { lines, log: new AgentLog({ write: (l) => lines.push(l) }) };
};
const fast = { backoff: { minMs: 50, maxMs: 200 } };

describe("agent configuration: credentials", () => {
  const base = { version: 1, project_id: randomUUID(), data_dir: "/var/lib/caudal-agent" };
  const problems = (raw: Record<string, unknown>) => {
    const r = agentFileConfigSchema.safeParse({ ...base, ...raw });
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it("takes agent_token with mqtt_url, or enrollment_code with server_url (mqtt_url optional)", () => {
    expect(problems({ agent_token: "cat_0123456789abcdef", mqtt_url: "mqtt://s:1883" })).toEqual([]);
    expect(problems({ enrollment_code: "cen_0123456789abcdef", server_url: "https://s.example" })).toEqual(
      [],
    );
  });

  it("names what is missing", () => {
    expect(problems({ mqtt_url: "mqtt://s:1883" })).toEqual([
      "agent_token: either agent_token or enrollment_code is required",
    ]);
    expect(problems({ enrollment_code: "cen_0123456789abcdef" })).toEqual([
      "server_url: is required with enrollment_code: the agent enrolls at the server's URL",
    ]);
    expect(problems({ agent_token: "cat_0123456789abcdef" })).toEqual([
      "mqtt_url: is required with agent_token (it may be left out only when enrolling with enrollment_code)",
    ]);
    expect(problems({ enrollment_code: "short", server_url: "ftp://s" })).toEqual([
      "server_url: must be an http:// or https:// URL",
      "enrollment_code: looks truncated (at least 16 characters)",
    ]);
  });
});

describe("the token file", () => {
  it("is written 0600, atomically (no temporary file left), and read back", () => {
    const path = tokenFilePath(join(dataDir(), "not-yet"));
    const token = {
      project_id: randomUUID(),
      agent_token: "cat_0123456789abcdef",
      mqtt_url: "mqtt://s:1883",
    };
    writeTokenFile(path, token);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readTokenFile(path)).toEqual(token);
    writeTokenFile(path, { ...token, mqtt_url: "mqtt://t:1883" });
    expect(readTokenFile(path)?.mqtt_url).toBe("mqtt://t:1883");
    expect(readdirSync(join(path, ".."))).toEqual(["agent-token.json"]);
  });

  it("absent: undefined; present but broken: an error that says how to recover", () => {
    const path = tokenFilePath(dataDir());
    expect(readTokenFile(path)).toBeUndefined();
    writeFileSync(path, "{");
    expect(() => readTokenFile(path)).toThrow(/is not JSON; remove it to enroll again/);
    writeFileSync(path, JSON.stringify({ project_id: "x", agent_token: "cat_0123456789abcdef" }));
    expect(() => readTokenFile(path)).toThrow(/is invalid \(project_id, mqtt_url\)/);
  });
});

describe("agentCredentials against a real server", () => {
  let t: TestServer;
  let admin: string;
  let project: string;
  beforeAll(async () => {
    t = await TestServer.start();
    admin = (await t.admin()).token;
    project = await t.project();
  });
  afterAll(async () => t.stop());

  const issue = async (projectId = project) => {
    const res = await t.request<{ id: string; code: string }>(
      `/api/edge/projects/${projectId}/enrollment-codes`,
      {
        method: "POST",
        token: admin,
      },
    );
    expect(res.status).toBe(201);
    return res.body;
  };
  const statusOf = async (id: string) => {
    const list = await t.request<{ id: string; status: string }[]>(
      `/api/edge/projects/${project}/enrollment-codes`,
      {
        token: admin,
      },
    );
    return list.body.find((c) => c.id === id)?.status;
  };
  const enrolling = (code: string, dir: string, extra: Record<string, unknown> = {}): AgentFileConfig =>
    agentFileConfigSchema.parse({
      version: 1,
      server_url: t.baseUrl,
      project_id: project,
      enrollment_code: code,
      data_dir: dir,
      ...extra,
    });

  it("enrolls once, stores the token 0600, and never logs the code or the token", async () => {
    const dir = dataDir();
    const { id, code } = await issue();
    const { lines, log } = capture();
    const run = await agentCredentials(enrolling(code, dir), { log });
    expect(run.mqtt_url).toBe(`mqtt://127.0.0.1:${t.server.broker.port}`);
    expect(run.agent_token).toMatch(/^cat_/);
    expect(readTokenFile(tokenFilePath(dir))).toEqual({
      project_id: project,
      agent_token: run.agent_token,
      mqtt_url: run.mqtt_url,
    });
    expect(statSync(tokenFilePath(dir)).mode & 0o777).toBe(0o600);
    expect(await statusOf(id)).toBe("used");
    const text = lines.join("");
    expect(text).toContain("enrolled; the agent token is stored in");
    expect(text).not.toContain(code);
    expect(text).not.toContain(run.agent_token);

    // Re-running an installer: a new code in the configuration is ignored, and stays unspent.
    const again = await issue();
    const second = capture();
    const rerun = await agentCredentials(enrolling(again.code, dir), { log: second.log });
    expect(rerun.agent_token).toBe(run.agent_token);
    expect(second.lines.join("")).toContain("already enrolled");
    expect(await statusOf(again.id)).toBe("active");
  });

  it("the configuration's mqtt_url wins over the server's", async () => {
    const run = await agentCredentials(
      enrolling((await issue()).code, dataDir(), { mqtt_url: "ws://10.1.1.1:8080/mqtt" }),
      capture(),
    );
    expect(run.mqtt_url).toBe("ws://10.1.1.1:8080/mqtt");
  });

  it("without a token file, the configuration's agent_token is used and nothing is enrolled", async () => {
    const dir = dataDir();
    const config = agentFileConfigSchema.parse({
      version: 1,
      mqtt_url: "mqtt://127.0.0.1:1883",
      project_id: project,
      agent_token: "cat_configured-token-0123",
      data_dir: dir,
    });
    expect((await agentCredentials(config, capture())).agent_token).toBe("cat_configured-token-0123");
    expect(existsSync(tokenFilePath(dir))).toBe(false);
  });

  it("a revoked, a used or another project's code is refused at once, with the server's reason; no token file", async () => {
    const dir = dataDir();
    const revoked = await issue();
    await t.request(`/api/edge/projects/${project}/enrollment-codes/${revoked.id}`, {
      method: "DELETE",
      token: admin,
    });
    await expect(agentCredentials(enrolling(revoked.code, dir), capture())).rejects.toThrow(
      /enrollment refused: HTTP 401 EnrollmentCodeRevoked: this enrollment code was revoked/,
    );
    const used = await issue();
    await agentCredentials(enrolling(used.code, dataDir()), capture());
    await expect(agentCredentials(enrolling(used.code, dir), capture())).rejects.toThrow(
      /EnrollmentCodeUsed/,
    );
    const elsewhere = await issue(await t.project());
    await expect(agentCredentials(enrolling(elsewhere.code, dir), capture())).rejects.toThrow(
      /InvalidEnrollmentCode: this enrollment code belongs to another project/,
    );
    expect(existsSync(tokenFilePath(dir))).toBe(false);
  });

  it("a token file of another project stops the agent with a clear message", async () => {
    const dir = dataDir();
    writeTokenFile(tokenFilePath(dir), {
      project_id: randomUUID(),
      agent_token: "cat_0123456789abcdef",
      mqtt_url: "mqtt://s:1883",
    });
    await expect(agentCredentials(enrolling("cen_0123456789abcdef", dir), capture())).rejects.toThrow(
      EnrollmentRefused,
    );
  });

  it("a wrong server_url (404) is refused at once", async () => {
    const config = enrolling("cen_0123456789abcdef", dataDir(), { server_url: `${t.baseUrl}/nothing-here` });
    await expect(agentCredentials(config, capture())).rejects.toThrow(/enrollment refused: HTTP 404/);
  });
});

describe("enrollment before the server is reachable", () => {
  it("retries with backoff until the server answers, then enrolls", async () => {
    const port = await freePort();
    const dir = dataDir();
    const { lines, log } = capture();
    const waits: number[] = [];
    const config = agentFileConfigSchema.parse({
      version: 1,
      server_url: `http://127.0.0.1:${port}`,
      project_id: randomUUID(),
      enrollment_code: "cen_0123456789abcdef",
      data_dir: dir,
    });
    // Nothing listens yet: the first attempts fail with ECONNREFUSED.
    // Settled from the start: the server may refuse it (401) while the test is still setting up.
    const enrolled = Promise.allSettled([
      agentCredentials(config, { log, ...fast, onWait: (ms) => waits.push(ms) }),
    ]);
    const deadline = Date.now() + 5_000;
    while (waits.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(waits.slice(0, 3)).toEqual([50, 100, 200]);
    expect(lines.join("")).toContain("ECONNREFUSED");

    const t = await TestServer.start({ PORT: String(port) });
    try {
      const admin = (await t.admin()).token;
      const project = await t.project();
      const code = await t.request<{ code: string }>(`/api/edge/projects/${project}/enrollment-codes`, {
        method: "POST",
        token: admin,
      });
      // The agent already waits with its configured code; give the server that code's project.
      const real = { ...config, project_id: project, enrollment_code: code.body.code };
      const [[refused], [run]] = await Promise.all([
        enrolled,
        Promise.allSettled([agentCredentials(real, { log, ...fast })]),
      ]);
      // The first agent's code was never issued: once the server answers, it gets a 401, not a retry.
      expect(refused?.status === "rejected" && String(refused.reason)).toMatch(/InvalidEnrollmentCode/);
      expect(run?.status === "fulfilled" && run.value.project_id).toBe(project);
    } finally {
      await t.stop();
    }
  });

  it("stops waiting when aborted (SIGTERM while the WAN is down)", async () => {
    const port = await freePort();
    const abort = new AbortController();
    const config = agentFileConfigSchema.parse({
      version: 1,
      server_url: `http://127.0.0.1:${port}`,
      project_id: randomUUID(),
      enrollment_code: "cen_0123456789abcdef",
      data_dir: dataDir(),
    });
    const waits: number[] = [];
    const running = agentCredentials(config, {
      ...capture(),
      signal: abort.signal,
      backoff: { minMs: 60_000, maxMs: 60_000 },
      onWait: (ms) => waits.push(ms),
    });
    const done = running.then(
      () => "enrolled",
      (err: Error) => err.name,
    );
    const waiting = new Promise((r) => setTimeout(() => r("waiting"), 500));
    expect(await Promise.race([done, waiting])).toBe("waiting");
    expect(waits).toEqual([60_000]);
    const started = Date.now();
    abort.abort();
    expect(await done).toBe("AbortError");
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
