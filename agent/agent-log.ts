import { textLogLine } from "../shared/text-log.ts";

export type AgentLogLevel = "debug" | "info" | "warn" | "error";
export type AgentLogEntry = { level: AgentLogLevel; category: string; message: string; timestamp: string };

const ORDER: Record<AgentLogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const MAX_PENDING = 1000;
/** The logs topic's limits (shared/mqtt/topics.ts): one longer entry would void its whole batch. */
const MAX_MESSAGE = 4000;
const MAX_CATEGORY = 64;
/**
 * The JSON bytes of entries in one logs message: far below the broker's packet limit
 * (MQTT_MAX_PACKET_BYTES, 4 MiB by default), which closes the connection of a larger publish. 500
 * entries of 4,000 escaped control characters would otherwise be about 12 MB.
 */
export const MAX_BATCH_BYTES = 512 * 1024;

/** `json`: one object per line (journald, log shippers). `text`: for a person at a console (`npm start`). */
export type AgentLogFormat = "json" | "text";

/**
 * The agent's log: one line per entry on stdout (JSON by default; journald keeps it), and a
 * bounded queue of entries at or above `forwardLevel` waiting to be sent to the server over MQTT.
 */
export class AgentLog {
  readonly #pending: AgentLogEntry[] = [];
  readonly #forwardLevel: AgentLogLevel;
  readonly #write: (line: string) => void;
  readonly #format: AgentLogFormat;
  #overflow = 0;

  constructor(
    options: { forwardLevel?: AgentLogLevel; write?: (line: string) => void; format?: AgentLogFormat } = {},
  ) {
    this.#forwardLevel = options.forwardLevel ?? "info";
    this.#write = options.write ?? ((l) => process.stdout.write(l));
    this.#format = options.format ?? "json";
  }

  log(level: AgentLogLevel, category: string, message: string): void {
    const time = new Date();
    const entry = { level, category, message, timestamp: time.toISOString() };
    // Text, as the server's lines under `npm start`: the message says what happened; the
    // category stays in the JSON line and in what is forwarded to the server.
    this.#write(this.#format === "text" ? textLogLine(time, level, message) : `${JSON.stringify(entry)}\n`);
    if (ORDER[level] < ORDER[this.#forwardLevel]) return;
    if (this.#pending.length >= MAX_PENDING) {
      this.#pending.shift();
      this.#overflow += 1;
    }
    this.#pending.push({
      ...entry,
      category: category.slice(0, MAX_CATEGORY),
      message: message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message,
    });
  }

  /**
   * Takes up to `max` queued entries, and at most MAX_BATCH_BYTES of their JSON, for forwarding,
   * with a note of any that overflowed. The first entry is always taken: one entry is at most
   * about 24 kB.
   */
  take(max = 500): AgentLogEntry[] {
    let count = 0;
    let bytes = 0;
    for (const entry of this.#pending) {
      if (count >= max) break;
      bytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
      if (count > 0 && bytes > MAX_BATCH_BYTES) break;
      count += 1;
    }
    const out = this.#pending.splice(0, count);
    if (this.#overflow > 0) {
      out.unshift({
        level: "warn",
        category: "agent",
        message: `${this.#overflow} log entries were dropped while the server was unreachable`,
        timestamp: new Date().toISOString(),
      });
      this.#overflow = 0;
    }
    return out;
  }

  /** Puts entries back at the front (the send failed). */
  restore(entries: AgentLogEntry[]): void {
    this.#pending.unshift(...entries.slice(-(MAX_PENDING - this.#pending.length)));
  }
}
