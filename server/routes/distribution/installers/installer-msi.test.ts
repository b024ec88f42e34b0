import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { builtAgentBinaries } from "../../../../scripts/testing/agent-binaries.ts";
import { msitoolsMissing, wixlMissing } from "../../../../scripts/testing/peers.ts";
import { requirePeer } from "../../../../scripts/testing/require-peer.ts";
import type { AgentBuildManifest } from "../../../../shared/distribution/agent-manifest.ts";
import { msiUpgradeCode } from "../../../services/distribution/msi/msi-guids.ts";
import { auditOf } from "../../../testing/fixtures/field-fixtures.ts";
import {
  installerPath,
  msiTable,
  type Queued,
  waitForBuild,
} from "../../../testing/fixtures/installer-fixtures.ts";
import { TestServer } from "../../../testing/harness.ts";

const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/** The PE header of a Windows executable: its format (PE32 or PE32+) and machine (PE/COFF §3.3, §3.4). */
function peHeader(exe: Buffer): { format: "PE32" | "PE32+" | "other"; machine: number } {
  if (exe.toString("latin1", 0, 2) !== "MZ") return { format: "other", machine: 0 };
  const pe = exe.readUInt32LE(0x3c);
  if (exe.toString("latin1", pe, pe + 4) !== "PE\0\0") return { format: "other", machine: 0 };
  const magic = exe.readUInt16LE(pe + 24);
  return {
    format: magic === 0x20b ? "PE32+" : magic === 0x10b ? "PE32" : "other",
    machine: exe.readUInt16LE(pe + 4),
  };
}

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

/**
 * Issue 10, Done when "MSI": GET /api/edge/projects/{id}/installer builds a real MSI with wixl from
 * the real agent build, and msiinfo/msiextract show what Windows Installer would install.
 */
requirePeer("wixl", wixlMissing).describe("the project's Windows MSI", () => {
  const msitools = requirePeer("msitools", msitoolsMissing);
  let t: TestServer;
  let manifest: AgentBuildManifest;
  let projectId: string;
  let supervisor: string;
  let admin: string;
  let work: string;
  let msi: string;
  let extracted: string;
  let buildId: string;
  let codeId: string | null;
  let etag: string | null;

  beforeAll(async () => {
    const dist = await builtAgentBinaries();
    manifest = dist.manifest;
    t = await TestServer.start({ AGENT_DIST_DIR: dist.dir, PUBLIC_URL: "https://caudal.example.com" });
    admin = (await t.admin()).token;
    projectId = await t.project();
    supervisor = (await t.userWithRole("supervisor", [projectId])).token;
    work = mkdtempSync(join(tmpdir(), "caudal-msi-test-"));
  }, 300_000);
  afterAll(async () => {
    await t?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("answers 202 with Retry-After and the queued build, which succeeds with its log; then serves the MSI", async () => {
    const first = await t.request<Queued>(installerPath(projectId), { token: supervisor });
    expect(first.status).toBe(202);
    expect(first.headers.get("retry-after")).toBe("10");
    expect(["queued", "running"]).toContain(first.body.status);
    buildId = first.body.build_id;

    const started = Date.now();
    const { build } = await waitForBuild(t, supervisor, projectId, buildId);
    const seconds = (Date.now() - started) / 1000;
    process.stderr.write(
      `MSI build: ${seconds.toFixed(1)} s from request to succeeded, ${((build.installer?.bytes ?? 0) / 1e6).toFixed(1)} MB\n`,
    );
    expect(build.status, build.log).toBe("succeeded");
    expect(build.agent_version).toBe(manifest.version);
    expect(build.server_url).toBe("https://caudal.example.com");
    expect(build.started_at).not.toBeNull();
    expect(build.finished_at).not.toBeNull();
    for (const line of [
      "build started",
      "enrollment code",
      "copied and checked against the manifest",
      "running wixl",
      "MSI built in",
      "succeeded in",
    ])
      expect(build.log).toContain(line);
    expect(build.log.split("\n")[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z build started/);
    codeId = build.enrollment_code_id;

    const res = await fetch(`${t.baseUrl}${installerPath(projectId)}`, {
      headers: { authorization: `Bearer ${supervisor}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-msi");
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("content-disposition")).toMatch(
      /^attachment; filename="caudal-agent-project-[a-z0-9-]+\.msi"$/,
    );
    const body = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get("content-length"))).toBe(body.length);
    expect(body.length).toBe(build.installer?.bytes);
    etag = res.headers.get("etag");
    expect(etag).toBe(`"${sha256(body)}"`);
    expect(build.installer?.sha256).toBe(sha256(body));
    msi = join(work, "caudal-agent.msi");
    writeFileSync(msi, body);
    extracted = join(work, "files");
    execFileSync("msiextract", ["-C", extracted, msi]);
  }, 300_000);

  msitools.it("File rows: the agent, WinSW with its .config and XML, and the configuration", () => {
    const files = Object.fromEntries(msiTable(msi, "File").map((r) => [r.FileName, r]));
    expect(Object.keys(files).sort()).toEqual([
      "agent.json",
      "caudal-agent-service.exe",
      "caudal-agent-service.exe.config",
      "caudal-agent-service.xml",
      "caudal-agent.exe",
    ]);
    const exe = manifest.artifacts.find((a) => a.target === "windows-x64");
    expect(Number(files["caudal-agent.exe"]?.FileSize)).toBe(exe?.bytes);
    expect(Number(files["caudal-agent-service.exe"]?.FileSize)).toBe(manifest.winsw?.bytes);
    const dirs = Object.fromEntries(msiTable(msi, "Directory").map((r) => [r.Directory, r]));
    expect(dirs.INSTALLDIR).toMatchObject({
      Directory_Parent: "ProgramFiles64Folder",
      DefaultDir: "Caudal Agent",
    });
    expect(dirs.DATADIR).toMatchObject({ Directory_Parent: "INSTALLDIR", DefaultDir: "data" });
  });

  msitools.it(
    "ServiceInstall and ServiceControl rows: caudal-agent via WinSW, automatic, stopped and removed on uninstall",
    () => {
      const components = Object.fromEntries(msiTable(msi, "Component").map((r) => [r.Component, r]));
      const [install] = msiTable(msi, "ServiceInstall");
      expect(install).toMatchObject({
        Name: "caudal-agent",
        DisplayName: "Caudal Agent",
        ServiceType: "16", // SERVICE_WIN32_OWN_PROCESS
        StartType: "2", // SERVICE_AUTO_START
        ErrorControl: "1",
        StartName: "LocalSystem",
      });
      // The service's binary is its component's key path: WinSW, not the agent.
      expect(components[install?.Component_ ?? ""]?.KeyPath).toBe("ServiceExe");
      const [control] = msiTable(msi, "ServiceControl");
      expect(control).toMatchObject({ Name: "caudal-agent", Component_: install?.Component_, Wait: "1" });
      // msidbServiceControlEvent: Start on install 0x1, Stop on install 0x2 and uninstall 0x20, Delete on uninstall 0x80.
      expect(Number(control?.Event)).toBe(0x1 | 0x2 | 0x20 | 0x80);
      const sequence = Object.fromEntries(
        msiTable(msi, "InstallExecuteSequence").map((r) => [r.Action, Number(r.Sequence)]),
      );
      for (const action of ["StopServices", "DeleteServices", "InstallServices", "StartServices"])
        expect(sequence[action], action).toBeGreaterThan(0);
    },
  );

  msitools.it(
    "restart on failure, owner-only configuration and data, MajorUpgrade with the project's UpgradeCode",
    () => {
      const actions = Object.fromEntries(msiTable(msi, "CustomAction").map((r) => [r.Action, r]));
      expect(actions.CaudalServiceRecovery?.Target).toBe(
        "failure caudal-agent reset= 86400 actions= restart/10000/restart/30000/restart/60000",
      );
      expect(actions.CaudalProtectConfig?.Target).toContain('"[#AgentConfig]" /inheritance:r');
      expect(actions.CaudalProtectData?.Target).toContain('"[INSTALLDIR]data" /inheritance:r');
      // 50 (an executable named by a property) + deferred 0x400 + no impersonation 0x800.
      for (const a of ["CaudalServiceRecovery", "CaudalProtectConfig", "CaudalProtectData"])
        expect(Number(actions[a]?.Type), a).toBe(50 | 0x400 | 0x800);
      const sequence = Object.fromEntries(
        msiTable(msi, "InstallExecuteSequence").map((r) => [r.Action, Number(r.Sequence)]),
      );
      const at = (a: string) => sequence[a] ?? Number.NaN;
      expect(at("CaudalServiceRecovery")).toBeGreaterThan(at("InstallServices"));
      expect(at("CaudalServiceRecovery")).toBeLessThan(at("StartServices"));
      expect(at("CaudalProtectConfig")).toBeGreaterThan(at("InstallFiles"));
      expect(at("RemoveExistingProducts")).toBeGreaterThan(at("InstallValidate"));
      expect(at("RemoveExistingProducts")).toBeLessThan(at("InstallInitialize"));

      const code = `{${msiUpgradeCode(projectId)}}`;
      const upgrades = msiTable(msi, "Upgrade");
      expect(upgrades.map((u) => u.ActionProperty).sort()).toEqual([
        "CAUDAL_SAME_VERSION_DETECTED",
        "WIX_DOWNGRADE_DETECTED",
        "WIX_UPGRADE_DETECTED",
      ]);
      for (const u of upgrades) expect(u.UpgradeCode?.toUpperCase()).toBe(code);
      const properties = Object.fromEntries(msiTable(msi, "Property").map((r) => [r.Property, r.Value]));
      expect(properties.UpgradeCode?.toUpperCase()).toBe(code);
      expect(properties.ProductVersion).toBe(manifest.version.replace(/[-+].*$/, ""));
      expect(properties.ALLUSERS).toBe("1");
    },
  );

  msitools.it(
    "the configuration holds the project id, the server URL and the build's own enrollment code",
    async () => {
      const config = JSON.parse(readFileSync(join(extracted, "Caudal Agent", "agent.json"), "utf8"));
      expect(config).toEqual({
        version: 1,
        server_url: "https://caudal.example.com",
        project_id: projectId,
        enrollment_code: expect.stringMatching(/^cen_/),
        data_dir: "data",
      });
      // The code is the one the build names: issued for an MSI, audited, active.
      const codes = await t.request<{ id: string; purpose: string; status: string }[]>(
        `/api/edge/projects/${projectId}/enrollment-codes`,
        { token: admin },
      );
      expect(codes.body.find((c) => c.id === codeId)).toMatchObject({ purpose: "msi", status: "active" });
      expect((await auditOf(t, codeId ?? ""))[0]).toMatchObject({
        entity: "enrollment_code",
        action: "create",
      });
      expect((await auditOf(t, buildId))[0]).toMatchObject({ entity: "installer_build", action: "create" });
    },
  );

  msitools.it("the agent inside is the manifest's PE32+ x64 executable with its SEA blob", () => {
    const exe = readFileSync(join(extracted, "Caudal Agent", "caudal-agent.exe"));
    expect(peHeader(exe)).toEqual({ format: "PE32+", machine: 0x8664 });
    expect(sha256(exe)).toBe(manifest.artifacts.find((a) => a.target === "windows-x64")?.sha256);
    // postject flips the fuse to :1 and adds the blob as the NODE_SEA_BLOB resource (UTF-16 name).
    expect(exe.includes(`${SEA_FUSE}:1`)).toBe(true);
    expect(exe.includes(`${SEA_FUSE}:0`)).toBe(false);
    expect(exe.includes(Buffer.from("NODE_SEA_BLOB", "utf16le"))).toBe(true);
  });

  msitools.it(
    "WinSW is node-windows' exe, configured to run the agent with its config and log in the install folder",
    () => {
      const dir = join(extracted, "Caudal Agent");
      const winsw = readFileSync(join(dir, "caudal-agent-service.exe"));
      expect(sha256(winsw)).toBe(manifest.winsw?.sha256);
      expect(peHeader(winsw).format).toBe("PE32"); // a .NET program
      const xml = readFileSync(join(dir, "caudal-agent-service.xml"), "utf8");
      for (const part of [
        "<id>caudal-agent</id>",
        "<executable>%BASE%\\caudal-agent.exe</executable>",
        "<workingdirectory>%BASE%</workingdirectory>",
        '<env name="AGENT_CONFIG" value="%BASE%\\agent.json"/>',
        "<startmode>Automatic</startmode>",
        '<onfailure action="restart" delay="10 sec"/>',
        "<logpath>%BASE%\\logs</logpath>",
      ])
        expect(xml).toContain(part);
      expect(readFileSync(join(dir, "caudal-agent-service.exe.config"), "utf8")).toContain(
        '<supportedRuntime version="v4.0"/>',
      );
    },
  );

  it("serves the same MSI again from the cache; a revoked code makes it queue a new build", async () => {
    const again = await fetch(`${t.baseUrl}${installerPath(projectId)}`, {
      headers: { authorization: `Bearer ${supervisor}` },
    });
    expect(again.status).toBe(200);
    expect(again.headers.get("etag")).toBe(etag);
    await again.body?.cancel();

    const revoked = await t.request(`/api/edge/projects/${projectId}/enrollment-codes/${codeId}`, {
      method: "DELETE",
      token: supervisor,
    });
    expect(revoked.status).toBe(200);
    const after = await t.request<Queued>(installerPath(projectId), { token: supervisor });
    expect(after.status).toBe(202);
    expect(after.body.build_id).not.toBe(buildId);
    const { build } = await waitForBuild(t, supervisor, projectId, after.body.build_id);
    expect(build.status, build.log).toBe("succeeded");
    expect(build.enrollment_code_id).not.toBe(codeId);
    // Only the newest MSI is kept.
    const old = await t.request<{ installer: unknown }>(`/api/edge/projects/${projectId}/builds/${buildId}`, {
      token: supervisor,
    });
    expect(old.body.installer).toBeNull();
    buildId = build.id;
  }, 300_000);

  msitools.it(
    "its code enrolls an agent once; a used code, or one with less than a day left, makes it build again",
    async () => {
      const res = await fetch(`${t.baseUrl}${installerPath(projectId)}`, {
        headers: { authorization: `Bearer ${supervisor}` },
      });
      expect(res.status).toBe(200);
      writeFileSync(msi, Buffer.from(await res.arrayBuffer()));
      const dir = join(work, "second");
      execFileSync("msiextract", ["-C", dir, msi]);
      const { enrollment_code } = JSON.parse(readFileSync(join(dir, "Caudal Agent", "agent.json"), "utf8"));
      const enrolled = await t.request<{ project_id: string }>("/api/edge/agents/enroll", {
        body: { code: enrollment_code, hostname: "msi-test" },
      });
      expect(enrolled.status, enrolled.text).toBe(200);
      expect(enrolled.body.project_id).toBe(projectId);

      const afterUse = await t.request<Queued>(installerPath(projectId), { token: supervisor });
      expect(afterUse.status).toBe(202);
      expect(afterUse.body.build_id).not.toBe(buildId);
      const { build } = await waitForBuild(t, supervisor, projectId, afterUse.body.build_id);
      expect(build.status, build.log).toBe("succeeded");
      const served = await fetch(`${t.baseUrl}${installerPath(projectId)}`, {
        headers: { authorization: `Bearer ${supervisor}` },
      });
      expect(served.status).toBe(200);
      await served.body?.cancel();

      // A code lives 7 days; with less than one left, the MSI is not handed out again.
      t.clock.advance(6 * 86_400_000 + 3_600_000);
      const token = (await t.userWithRole("supervisor", [projectId])).token;
      const nearExpiry = await t.request<Queued>(installerPath(projectId), { token });
      expect(nearExpiry.status).toBe(202);
      expect(nearExpiry.body.build_id).not.toBe(build.id);
    },
    300_000,
  );
});
