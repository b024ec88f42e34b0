import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { msitoolsMissing, wixlMissing } from "../../../../scripts/testing/peers.ts";
import { requirePeer } from "../../../../scripts/testing/require-peer.ts";
import { WINSW_FILE } from "../../../../shared/distribution/agent-manifest.ts";
import { auditOf } from "../../../testing/fixtures/field-fixtures.ts";
import {
  installerPath,
  msiAgentDist,
  msiTable,
  type Queued,
  rebuildPath,
  waitForBuild,
} from "../../../testing/fixtures/installer-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

type Code = { id: string; purpose: string; status: string };

const NBSP = "\u00a0";
/** Names a supervisor may give a project, and how the MSI's ProductName shows each. */
const NAMES: [name: string, shown: string][] = [
  ["$(env.DATABASE_URL)", `$${NBSP}(env.DATABASE_URL)`],
  ["$(env.JWT_SECRET)", `$${NBSP}(env.JWT_SECRET)`],
  ["$(env.TOTP_SECRET_ENCRYPTION_KEY)", `$${NBSP}(env.TOTP_SECRET_ENCRYPTION_KEY)`],
  ["!(loc.X)", `!${NBSP}(loc.X)`],
  ["<?define X=$(env.JWT_SECRET)?>", `<${NBSP}?define X=$${NBSP}(env.JWT_SECRET)?>`],
  ["$(foo.bar)", `$${NBSP}(foo.bar)`],
];

/**
 * Issue 28 §1, against a production-mode server as the review ran it (both engines): a supervisor's
 * project name never reaches wixl's preprocessor (the server's secrets stay out of the MSI, and an
 * unknown `$(…)` does not break the project's builds), and an MSI that is replaced, or a build that
 * fails, leaves no enrollment code active behind it.
 */
requirePeer("wixl", wixlMissing).describe("MSI builds on a production server", () => {
  const msitools = requirePeer("msitools", msitoolsMissing);
  const secrets = {
    DATABASE_URL: `postgres://caudal:db-probe-${randomUUID()}@db.example/caudal`,
    JWT_SECRET: `jwt-probe-${randomUUID()}`,
    TOTP_SECRET_ENCRYPTION_KEY: `totp-probe-${randomUUID()}`,
  };
  const saved = { ...process.env };
  let t: TestServer;
  let dist: string;
  let work: string;
  let projectId: string;
  let supervisor: string;
  let admin: string;

  beforeAll(async () => {
    dist = msiAgentDist();
    t = await TestServer.start({
      NODE_ENV: "production",
      AGENT_DIST_DIR: dist,
      PUBLIC_URL: "https://caudal.example.com",
    });
    // The server's process environment (wixl's parent's): what `$(env.X)` would have read.
    Object.assign(process.env, secrets);
    admin = (await t.admin()).token;
    projectId = await t.project();
    supervisor = (await t.userWithRole("supervisor", [projectId])).token;
    work = mkdtempSync(join(tmpdir(), "caudal-msi-security-"));
  }, 120_000);
  afterAll(async () => {
    for (const key of Object.keys(secrets)) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
    await t?.stop();
    for (const dir of [work, dist]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const codes = async () =>
    (await t.request<Code[]>(`/api/edge/projects/${projectId}/enrollment-codes`, { token: admin })).body;

  /** The served MSI, saved under `name` in the work folder. */
  async function download(name: string): Promise<string> {
    const res = await fetch(`${t.baseUrl}${installerPath(projectId)}`, {
      headers: { authorization: `Bearer ${supervisor}` },
    });
    expect(res.status).toBe(200);
    const file = join(work, name);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    return file;
  }

  function enrollmentCodeIn(msi: string): string {
    const dir = join(work, `${msi}.files`);
    execFileSync("msiextract", ["-C", dir, msi]);
    return JSON.parse(readFileSync(join(dir, "Caudal Agent", "agent.json"), "utf8")).enrollment_code;
  }

  for (const [i, [name, shown]] of NAMES.entries()) {
    msitools.it(
      `a project named ${JSON.stringify(name)} builds, and its MSI reads ${JSON.stringify(shown)}`,
      async () => {
        const put = await t.request(`/api/edge/projects/${projectId}`, {
          method: "PUT",
          token: supervisor,
          body: { name },
        });
        expect(put.status, put.text).toBe(200);
        const queued = await t.request<Queued>(installerPath(projectId), { token: supervisor });
        expect(queued.status, queued.text).toBe(202);
        const { build } = await waitForBuild(t, supervisor, projectId, queued.body.build_id);
        expect(build.status, build.log).toBe("succeeded");
        const msi = await download(`name-${i}.msi`);
        const properties = Object.fromEntries(msiTable(msi, "Property").map((r) => [r.Property, r.Value]));
        expect(properties.ProductName).toBe(`Caudal Agent (${shown})`);
        const bytes = readFileSync(msi);
        for (const secret of Object.values(secrets))
          for (const encoding of ["latin1", "utf16le"] as const)
            expect(bytes.includes(Buffer.from(secret, encoding)), secret).toBe(false);
      },
    );
  }

  msitools.it(
    "a rebuild revokes the code of the MSI it replaces: that one no longer enrolls, and one MSI code is active",
    async () => {
      const first = await download("before-rebuild.msi");
      const firstCode = enrollmentCodeIn(first);
      const rebuilt = await t.request<Queued>(rebuildPath(projectId), { method: "POST", token: supervisor });
      expect(rebuilt.status, rebuilt.text).toBe(202);
      const { build } = await waitForBuild(t, supervisor, projectId, rebuilt.body.build_id);
      expect(build.status, build.log).toBe("succeeded");
      expect(build.log).toContain("revoked the codes of the MSIs it replaces");

      const refused = await t.request<{ error: string }>("/api/edge/agents/enroll", {
        body: { code: firstCode, hostname: "old-msi" },
      });
      expect(refused.status, refused.text).toBe(401);
      expect(refused.body.error).toBe("EnrollmentCodeRevoked");

      const active = (await codes()).filter((c) => c.purpose === "msi" && c.status === "active");
      expect(active.map((c) => c.id)).toEqual([build.enrollment_code_id]);
      // Every earlier build of this file (one per name above, and the first) was revoked, by the system.
      const revoked = (await codes()).filter((c) => c.purpose === "msi" && c.status === "revoked");
      expect(revoked.length).toBe(NAMES.length);
      const entries = await auditOf(t, revoked[0]?.id ?? "");
      expect(entries.at(-1)).toMatchObject({
        action: "update",
        user_id: null,
        after: expect.stringContaining('"status":"revoked"'),
      });

      const second = enrollmentCodeIn(await download("after-rebuild.msi"));
      const enrolled = await t.request("/api/edge/agents/enroll", {
        body: { code: second, hostname: "new-msi" },
      });
      expect(enrolled.status, enrolled.text).toBe(200);
    },
  );

  it("a build that fails revokes the code it issued, and leaves the served MSI's code alone", async () => {
    // The served MSI's code was used above: this rebuild starts from an MSI whose code is active.
    const fresh = await t.request<Queued>(rebuildPath(projectId), { method: "POST", token: supervisor });
    const served = await waitForBuild(t, supervisor, projectId, fresh.body.build_id);
    expect(served.build.status, served.build.log).toBe("succeeded");
    // WinSW changes under the manifest: the build stops after issuing its code.
    const winsw = join(dist, WINSW_FILE);
    const original = readFileSync(winsw);
    writeFileSync(winsw, randomBytes(original.length));
    try {
      const queued = await t.request<Queued>(rebuildPath(projectId), { method: "POST", token: supervisor });
      const { build } = await waitForBuild(t, supervisor, projectId, queued.body.build_id);
      expect(build.status).toBe("failed");
      expect(build.log).toContain("not the manifest's");
      const byId = new Map((await codes()).map((c) => [c.id, c.status]));
      expect(build.enrollment_code_id).not.toBeNull();
      expect(byId.get(build.enrollment_code_id ?? "")).toBe("revoked");
      expect(byId.get(served.build.enrollment_code_id ?? "")).toBe("active");
    } finally {
      writeFileSync(winsw, original);
    }
  });
});
