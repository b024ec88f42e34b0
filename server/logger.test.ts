import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.ts";

describe("createLogger", () => {
  it("writes one JSON object per line by default (npm run server)", () => {
    const lines: string[] = [];
    createLogger("info", (l) => lines.push(l)).info("http listening", { port: 8080 });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ level: "info", msg: "http listening", port: 8080 });
  });

  it("text: an info line is the time and the message; warnings and errors add level and fields", () => {
    const lines: string[] = [];
    const logger = createLogger("info", (l) => lines.push(l), "text");
    logger.info("agent of Demo field is online", { event: "agent_online", project_id: "p1" });
    logger.warn("invalid agent message", { topic: "caudal/v1/x/agent/logs", reason: "bad json" });
    logger.debug("not shown");
    expect(lines).toHaveLength(2);
    // An activity line (tagged with an event) is written whole for people: its ids are for machines.
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d agent of Demo field is online\n$/);
    expect(lines[1]).toMatch(
      /^\d\d:\d\d:\d\d WARN invalid agent message topic=caudal\/v1\/x\/agent\/logs reason="bad json"\n$/,
    );
  });

  it("text: the start-up info lines keep their fields (engine, database, host, port)", () => {
    const lines: string[] = [];
    const logger = createLogger("info", (l) => lines.push(l), "text");
    logger.info("storage", { engine: "sqlite", database: "/srv/caudal/data/caudal.db" });
    logger.info("mqtt listening", { host: "0.0.0.0", port: 1883 });
    logger.info("http listening", { host: "::", port: 8080 });
    logger.info("stopping", { signal: "SIGINT", missing: undefined });
    expect(lines.map((l) => l.slice(9))).toEqual([
      "storage engine=sqlite database=/srv/caudal/data/caudal.db\n",
      "mqtt listening host=0.0.0.0 port=1883\n",
      "http listening host=:: port=8080\n",
      "stopping signal=SIGINT\n",
    ]);
  });
});
