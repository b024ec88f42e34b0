import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { InstallerBuildDto } from "../../services/distribution/installer-builds/build-dto.ts";
import type { TestServer } from "../../testing/harness.ts";

export type Queued = { build_id: string; status: string };

/** An AGENT_DIST_DIR with no agent build in it: builds fail at once, saying so. */
export function emptyAgentDist(): string {
  return mkdtempSync(join(tmpdir(), "caudal-no-agent-build-"));
}

export const installerPath = (projectId: string) => `/api/edge/projects/${projectId}/installer`;
export const buildPath = (projectId: string) => `/api/edge/projects/${projectId}/build`;
export const rebuildPath = (projectId: string) => `/api/edge/projects/${projectId}/rebuild`;
export const buildStatusPath = (projectId: string, buildId: string) =>
  `/api/edge/projects/${projectId}/builds/${buildId}`;

export async function getBuild(
  t: TestServer,
  token: string,
  projectId: string,
  buildId: string,
): Promise<InstallerBuildDto> {
  const res = await t.request<InstallerBuildDto>(buildStatusPath(projectId, buildId), { token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Polls GET …/builds/{build_id} until the build succeeded or failed; every status seen, in order. */
export async function waitForBuild(
  t: TestServer,
  token: string,
  projectId: string,
  buildId: string,
  timeoutMs = 180_000,
): Promise<{ build: InstallerBuildDto; seen: string[] }> {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const build = await getBuild(t, token, projectId, buildId);
    if (seen.at(-1) !== build.status) seen.push(build.status);
    if (build.status === "succeeded" || build.status === "failed") return { build, seen };
    if (Date.now() > deadline) throw new Error(`build ${buildId} still ${build.status}:\n${build.log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One table of an MSI, as msiinfo exports it (names, types, then the table's name; tab-separated). */
export function msiTable(msi: string, table: string): Record<string, string>[] {
  const text = execFileSync("msiinfo", ["export", msi, table], { encoding: "utf8" });
  const [header = "", , , ...rows] = text.split(/\r?\n/);
  const columns = header.split("\t");
  return rows
    .filter((r) => r.length > 0)
    .map((r) => Object.fromEntries(r.split("\t").map((v, i) => [columns[i] ?? `#${i}`, v])));
}
