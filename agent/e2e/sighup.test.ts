import { existsSync } from "node:fs";
import { join } from "node:path";
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { topics } from "../../shared/mqtt/topics.ts";
import { ChildAgent, freePort } from "../testing/child-agent.ts";
import { Pipeline, waitFor } from "../testing/pipeline.ts";

describe("SIGHUP (a closed terminal): the agent stops as it does on Ctrl-C", () => {
  let p: Pipeline;
  beforeAll(async () => {
    p = await Pipeline.start({ pollIntervalMs: 100 });
  });
  afterAll(async () => p.stop());

  it("publishes a clean offline status, closes its store and exits 0", async () => {
    const { token, email } = await p.t.admin();
    const observer = await mqtt.connectAsync(p.mqttUrl, {
      username: email,
      password: token,
      reconnectPeriod: 0,
    });
    const statuses: { status: string; at?: string }[] = [];
    observer.on("message", (_topic, payload) => statuses.push(JSON.parse(payload.toString("utf8"))));
    await observer.subscribeAsync(topics.status(p.projectId), { qos: 1 });

    const dir = p.agentDir();
    const agent = new ChildAgent(p.agentConfig(dir, { local_api_port: await freePort() }));
    try {
      await agent.start();
      await waitFor("online status", () => statuses.some((s) => s.status === "online"));

      expect(await agent.kill("SIGHUP")).toEqual({ code: 0, signal: null });
      expect(agent.entries().some((e) => e.message === "stopping on SIGHUP")).toBe(true);
      // The clean offline status carries `at`; the broker's last will (a killed agent) does not.
      const offline = await waitFor("offline status", () => statuses.find((s) => s.status === "offline"));
      expect(offline.at).toEqual(expect.any(String));
      // node:sqlite removes the -wal file when the store is closed cleanly.
      expect(existsSync(join(dir, "agent.db"))).toBe(true);
      expect(existsSync(join(dir, "agent.db-wal"))).toBe(false);
    } finally {
      if (agent.running) await agent.kill("SIGKILL");
      await observer.endAsync();
    }
  });
});
