import type { InstallerBuildStore } from "../../../store/ports/installer-build-store.ts";

/** A build's log keeps its last 64 KiB: wixl's output is bounded, but a log must never grow without end. */
const LOG_MAX_CHARS = 65_536;

export function logLine(at: Date, message: string): string {
  return `${at.toISOString()} ${message.trimEnd()}\n`;
}

/** Appends one timestamped line to a build's log. */
export function appendBuildLog(
  builds: InstallerBuildStore,
  buildId: string,
  at: Date,
  message: string,
): Promise<void> {
  return builds.appendLog(buildId, logLine(at, message), LOG_MAX_CHARS);
}
