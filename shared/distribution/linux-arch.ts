import type { AgentTarget } from "./agent-manifest.ts";

/** The architectures of the Linux agent binary, as `uname -m` names them (GET /api/edge/agent/linux-binary/{arch}). */
export const LINUX_ARCHES = ["x86_64", "aarch64"] as const;
export type LinuxArch = (typeof LINUX_ARCHES)[number];

/** The build target of a Linux architecture. */
export function linuxTarget(arch: LinuxArch): AgentTarget {
  return arch === "x86_64" ? "linux-x86_64" : "linux-aarch64";
}
