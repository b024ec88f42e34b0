import { format } from "node:util";

export type OpcUaLogSink = (level: "info" | "warn" | "error", message: string) => void;
type OpcUaLoggers = Pick<typeof import("./opcua-sdk.ts"), "setWarningLogger" | "setErrorLogger">;

/** node-opcua prints at most this many entries from one line of its code, as its own logger does. */
const PER_SOURCE = 100;

/** Where node-opcua's warnings and errors go: the agent's log once main.ts sets it (this process). */
let sink: OpcUaLogSink | undefined;
/** Whether node-opcua's loggers point at `sink` yet; they are module state of node-opcua-debug. */
let routed = false;
/** Entries seen per node-opcua source line (this process), for PER_SOURCE. */
const seen = new Map<string, number>();

/** Sends node-opcua's own messages to `to` from the next time the OPC UA driver loads it. */
export function setOpcUaLogSink(to: OpcUaLogSink): void {
  sink = to;
}

/**
 * Points node-opcua's warning and error loggers at the sink: one line per message in the agent's
 * log (and forwarded to the server), instead of node-opcua's timestamped multi-line console dump.
 * Its first-use "Creating default certificate ... please wait" is progress, not a warning: said
 * as such, at info.
 */
export function routeOpcUaLog(ua: OpcUaLoggers): void {
  const to = sink;
  if (routed || !to) return;
  routed = true;
  const entry =
    (level: "warn" | "error") =>
    (context?: unknown, ...args: unknown[]) => {
      const source = sourceOf(context);
      const count = (seen.get(source) ?? 0) + 1;
      seen.set(source, count);
      if (count > PER_SOURCE) return;
      const text = format(...args)
        .replace(/\s*\n\s*(\.\.\.\s*)?/g, " ")
        .trim();
      if (/^Creating default certificate/.test(text))
        to("info", "creating this agent's OPC UA certificate (first use; a few seconds)");
      else
        to(level, count === PER_SOURCE ? `${text} (repeated ${PER_SOURCE} times; no more are logged)` : text);
    };
  ua.setWarningLogger(entry("warn"));
  ua.setErrorLogger(entry("error"));
}

/** node-opcua passes `{ filename, callerline }` before the message (node-opcua-debug make_loggers). */
function sourceOf(context: unknown): string {
  if (typeof context !== "object" || context === null) return "";
  const { filename, callerline } = context as { filename?: unknown; callerline?: unknown };
  return `${String(filename)}:${String(callerline)}`;
}
