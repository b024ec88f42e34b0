import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { chmod, mkdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { msiAgentConfig } from "./agent-config.ts";
import { productWxs } from "./product-wxs.ts";
import { serviceDescription, winswExeConfig, winswServiceXml } from "./winsw-config.ts";
import { runWixl } from "./wixl.ts";

export type MsiBuildInput = {
  projectId: string;
  projectName: string;
  serverUrl: string;
  enrollmentCode: string;
  agentVersion: string;
  /** The Windows executable and WinSW as the agent build's manifest names them. */
  agentExe: { path: string; sha256: string };
  winsw: { path: string; sha256: string };
  /** A fresh folder for wixl's sources; removed afterwards (it holds the enrollment code). */
  workDir: string;
  /** Where the MSI ends up, renamed into place once complete. */
  outFile: string;
  timeoutMs: number;
  signal: AbortSignal;
  log: (line: string) => void;
};

export class MsiBuildError extends Error {}

/** Copies `from` to `to`, hashing on the way, and checks the copy is the file the manifest names. */
async function copyVerified(from: { path: string; sha256: string }, to: string): Promise<void> {
  const hash = createHash("sha256");
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(createReadStream(from.path), tap, createWriteStream(to));
  const actual = hash.digest("hex");
  if (actual !== from.sha256)
    throw new MsiBuildError(
      `${from.path} has SHA-256 ${actual}, not the manifest's ${from.sha256}: the agent build changed under this one (run npm run build:agent again)`,
    );
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * One project's MSI: the agent and WinSW, copied and checked against the manifest (wixl then reads
 * a snapshot that cannot change under it), the generated WinSW and agent configurations, and the
 * WiX source, compiled by wixl.
 */
export async function buildMsi(input: MsiBuildInput): Promise<{ bytes: number; sha256: string }> {
  const { workDir, log } = input;
  await rm(workDir, { recursive: true, force: true });
  await mkdir(workDir, { recursive: true, mode: 0o700 });
  try {
    const started = Date.now();
    await copyVerified(input.agentExe, join(workDir, "agent.exe"));
    await copyVerified(input.winsw, join(workDir, "winsw.exe"));
    log(`agent ${input.agentVersion} and WinSW copied and checked against the manifest`);
    await writeFile(join(workDir, "service.xml"), winswServiceXml(serviceDescription(input.projectId)));
    await writeFile(join(workDir, "service.exe.config"), winswExeConfig());
    await writeFile(
      join(workDir, "agent.json"),
      msiAgentConfig({
        serverUrl: input.serverUrl,
        projectId: input.projectId,
        enrollmentCode: input.enrollmentCode,
      }),
      { mode: 0o600 },
    );
    const wxs = productWxs({
      projectId: input.projectId,
      projectName: input.projectName,
      agentVersion: input.agentVersion,
      sources: {
        agentExe: "agent.exe",
        serviceExe: "winsw.exe",
        serviceExeConfig: "service.exe.config",
        serviceXml: "service.xml",
        agentConfig: "agent.json",
      },
    });
    await writeFile(join(workDir, "product.wxs"), wxs);
    log(`running wixl (server URL ${input.serverUrl})`);
    const run = await runWixl({
      cwd: workDir,
      wxs: "product.wxs",
      out: "product.msi",
      timeoutMs: input.timeoutMs,
      signal: input.signal,
    });
    if (run.output) log(`wixl: ${run.output}`);
    if (!run.ok) throw new MsiBuildError(run.reason);
    const msi = join(workDir, "product.msi");
    const { size } = await stat(msi);
    const sha256 = await sha256Of(msi);
    await chmod(msi, 0o600); // it holds the enrollment code
    await rename(msi, input.outFile);
    log(`MSI built in ${((Date.now() - started) / 1000).toFixed(1)} s: ${(size / 1e6).toFixed(1)} MB`);
    return { bytes: size, sha256 };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
