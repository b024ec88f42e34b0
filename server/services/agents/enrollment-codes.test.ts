import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../errors.ts";
import { TestServer } from "../../testing/harness.ts";
import { tableProbe } from "../../testing/table-probe.ts";
import { sha256Hex } from "../auth/tokens.ts";
import {
  ENROLLMENT_CODE_TTL_SECONDS,
  enrollAgent,
  enrollmentCodeState,
  issueEnrollmentCode,
} from "./enrollment-codes.ts";

const codeOf = async (fn: () => Promise<unknown>): Promise<string> => {
  try {
    await fn();
  } catch (err) {
    if (err instanceof AppError) return err.code;
    throw err;
  }
  throw new Error("expected an AppError");
};

/** The service as the system uses it (a script download, an MSI build): no user, still audited. */
describe("enrollment codes (service)", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start();
  });
  afterAll(async () => t.stop());

  it("a system-issued code: only its hash stored, 7 days by default, audited with no user", async () => {
    const project = await t.project();
    const ctx = t.server.context;
    const issued = await issueEnrollmentCode(ctx, null, project, { purpose: "linux_script" });
    expect(issued.code).toMatch(/^cen_[\w-]{43}$/);
    expect(Date.parse(issued.expires_at) - ctx.clock.now().getTime()).toBeGreaterThan(
      (ENROLLMENT_CODE_TTL_SECONDS - 5) * 1000,
    );
    const row = await t.server.store.agents.enrollmentCode(issued.id);
    expect(row).toMatchObject({ codeHash: sha256Hex(issued.code), purpose: "linux_script", createdBy: null });
    expect(JSON.stringify(row)).not.toContain(issued.code);
    const audit = await t.server.store.audit.list({ entityId: issued.id, limit: 10_000 });
    expect(audit).toEqual([
      expect.objectContaining({
        entity: "enrollment_code",
        action: "create",
        userId: null,
        projectId: project,
      }),
    ]);
    expect(JSON.stringify(audit)).not.toContain(issued.code);
  });

  it("NotFound for an unknown project; ValidationFailed for a TTL out of range", async () => {
    const ctx = t.server.context;
    expect(await codeOf(() => issueEnrollmentCode(ctx, null, crypto.randomUUID()))).toBe("NotFound");
    const project = await t.project();
    expect(await codeOf(() => issueEnrollmentCode(ctx, null, project, { ttlSeconds: 0 }))).toBe(
      "ValidationFailed",
    );
    expect(await codeOf(() => issueEnrollmentCode(ctx, null, project, { ttlSeconds: 31 * 24 * 3600 }))).toBe(
      "ValidationFailed",
    );
  });

  it("state: active, then used after enrolling; expired once the clock passes expires_at; unknown is null", async () => {
    const project = await t.project();
    const ctx = t.server.context;
    const used = await issueEnrollmentCode(ctx, null, project, { purpose: "msi", ttlSeconds: 60 });
    const idle = await issueEnrollmentCode(ctx, null, project, { purpose: "msi", ttlSeconds: 60 });
    expect(await enrollmentCodeState(ctx, used.code)).toEqual({
      id: used.id,
      projectId: project,
      status: "active",
    });
    await enrollAgent(ctx, used.code, { hostname: "rig-7" });
    expect((await enrollmentCodeState(ctx, used.code))?.status).toBe("used");
    t.clock.advance(61_000);
    expect((await enrollmentCodeState(ctx, idle.code))?.status).toBe("expired");
    // Used stays used after expiry: it answers why the code does not work.
    expect((await enrollmentCodeState(ctx, used.code))?.status).toBe("used");
    expect(await codeOf(() => enrollAgent(ctx, idle.code, {}))).toBe("EnrollmentCodeExpired");
    expect(await enrollmentCodeState(ctx, "cen_never-issued")).toBeNull();
  });

  it("the enrolled token logs in to MQTT as agent:<project>, and the project's previous token stops working", async () => {
    const project = await t.project();
    const ctx = t.server.context;
    const url = `mqtt://127.0.0.1:${t.server.broker.port}`;
    const first = await enrollAgent(ctx, (await issueEnrollmentCode(ctx, null, project)).code, {});
    const old = await mqtt.connectAsync(url, {
      username: first.mqtt_username,
      password: first.agent_token,
      reconnectPeriod: 0,
    });
    const closed = new Promise<void>((resolve) => old.once("close", () => resolve()));
    const second = await enrollAgent(ctx, (await issueEnrollmentCode(ctx, null, project)).code, {
      hostname: "b",
    });
    expect(second).toMatchObject({ project_id: project, mqtt_username: `agent:${project}` });
    await closed;
    const agent = await mqtt.connectAsync(url, {
      username: second.mqtt_username,
      password: second.agent_token,
      reconnectPeriod: 0,
    });
    await agent.endAsync();
    await expect(
      mqtt.connectAsync(url, {
        username: first.mqtt_username,
        password: first.agent_token,
        reconnectPeriod: 0,
      }),
    ).rejects.toThrow(/Not authorized|Bad username or password/);
  });

  it("a failed enrollment writes nothing: no token, no audit row, the code stays as it was", async () => {
    const project = await t.project();
    const ctx = t.server.context;
    const issued = await issueEnrollmentCode(ctx, null, project);
    const auditBefore = await tableProbe(t.server).count("audit_log");
    expect(await codeOf(() => enrollAgent(ctx, `${issued.code}x`, {}))).toBe("InvalidEnrollmentCode");
    expect(await tableProbe(t.server).count("audit_log")).toBe(auditBefore);
    expect((await enrollmentCodeState(ctx, issued.code))?.status).toBe("active");
  });

  it("codes go with their project", async () => {
    const project = await t.project();
    const ctx = t.server.context;
    const issued = await issueEnrollmentCode(ctx, null, project);
    const del = await t.request(`/api/edge/projects/${project}`, {
      method: "DELETE",
      token: (await t.admin()).token,
    });
    expect(del.status).toBe(204);
    expect(await enrollmentCodeState(ctx, issued.code)).toBeNull();
  });
});
