import { describe, expect, it } from "vitest";
import { payloads } from "../shared/mqtt/topics.ts";
import { AgentLog, MAX_BATCH_BYTES } from "./agent-log.ts";

describe("AgentLog.take", () => {
  it("keeps each logs message far below the broker's packet limit, and loses no entry", () => {
    const log = new AgentLog({ write: () => {} });
    // Control characters are escaped as \\u00XX in JSON: 6 bytes each, the worst case per character.
    const worst = "\u0001".repeat(4000);
    for (let i = 0; i < 600; i += 1) log.log("error", "driver", `${i}:${worst}`);

    const seen: string[] = [];
    for (let batch = log.take(); batch.length > 0; batch = log.take()) {
      const message = { agent_id: "3f1c2a9e-8d4b-4c1e-9a57-2b6f0c8e1d23", entries: batch };
      expect(payloads.logs.safeParse(message).success).toBe(true);
      expect(Buffer.byteLength(JSON.stringify(message))).toBeLessThan(MAX_BATCH_BYTES + 1024);
      seen.push(...batch.map((e) => e.message.slice(0, e.message.indexOf(":"))));
    }
    expect(seen).toEqual(Array.from({ length: 600 }, (_, i) => String(i)));
  });

  it("still takes up to `max` small entries at once", () => {
    const log = new AgentLog({ write: () => {} });
    for (let i = 0; i < 700; i += 1) log.log("info", "agent", `entry ${i}`);
    expect(log.take()).toHaveLength(500);
    expect(log.take()).toHaveLength(200);
  });
});

describe("AgentLog lines", () => {
  it("are JSON by default (journald) and plain text with format: text (npm start)", () => {
    const json: string[] = [];
    const text: string[] = [];
    new AgentLog({ write: (l) => json.push(l) }).log("info", "sync", "connected to the broker");
    const log = new AgentLog({ write: (l) => text.push(l), format: "text" });
    log.log("info", "sync", "connected to the broker");
    log.log("warn", "driver", "Well DF-1: timeout");
    expect(JSON.parse(json[0] ?? "")).toMatchObject({ level: "info", category: "sync" });
    expect(text).toHaveLength(2);
    expect(text[0]).toMatch(/^\d\d:\d\d:\d\d connected to the broker\n$/);
    expect(text[1]).toMatch(/^\d\d:\d\d:\d\d WARN Well DF-1: timeout\n$/);
    // What is forwarded to the server keeps its category either way.
    expect(log.take().map((e) => e.category)).toEqual(["sync", "driver"]);
  });
});
