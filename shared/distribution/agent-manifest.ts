import { z } from "zod";

/** The agent's single-executable targets (`npm run build:agent`), named as the files are. */
export const AGENT_TARGETS = ["linux-x86_64", "linux-aarch64", "windows-x64"] as const;
export type AgentTarget = (typeof AGENT_TARGETS)[number];

/** File name of a target's executable in the build's output folder. */
export function agentArtifactFile(target: AgentTarget): string {
  return target === "windows-x64" ? "agent-windows-x64.exe" : `agent-${target}`;
}

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lower-case hex digits (SHA-256)");

export const agentArtifactSchema = z.object({
  target: z.enum(AGENT_TARGETS),
  file: z.string().regex(/^[A-Za-z0-9._-]+$/, "must be a plain file name"),
  bytes: z.number().int().positive(),
  sha256: sha256Hex,
  /** Size after `xz -6`, for the figures; the server serves the raw file. */
  xz_bytes: z.number().int().positive().optional(),
});
export type AgentArtifact = z.infer<typeof agentArtifactSchema>;

/** File name of WinSW in the build's output folder; the MSI installs it as caudal-agent-service.exe. */
export const WINSW_FILE = "winsw.exe";

/**
 * WinSW, the Windows service wrapper (node.exe cannot answer the service manager), copied from the
 * npm package node-windows so that building an MSI needs only wixl.
 */
export const winswEntrySchema = z.object({
  file: z.string().regex(/^[A-Za-z0-9._-]+$/, "must be a plain file name"),
  bytes: z.number().int().positive(),
  sha256: sha256Hex,
});
export type WinswEntry = z.infer<typeof winswEntrySchema>;

/** `manifest.json` beside the executables: what was built, from what, and each file's checksum. */
export const agentBuildManifestSchema = z.object({
  version: z.string().min(1),
  commit: z.string().min(1),
  built_at: z.iso.datetime(),
  node_version: z.string().min(1),
  /** SHA-256 of everything the executables are made from; equal inputs reuse the last build. */
  inputs_sha256: sha256Hex,
  artifacts: z.array(agentArtifactSchema),
  /** Present when the windows-x64 target was built. */
  winsw: winswEntrySchema.optional(),
});
export type AgentBuildManifest = z.infer<typeof agentBuildManifestSchema>;

export const AGENT_MANIFEST_FILE = "manifest.json";
