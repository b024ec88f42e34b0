import { afterAll, beforeAll, expect, it } from "vitest";
import { requirePeer } from "../../scripts/testing/require-peer.ts";
import { topics } from "../../shared/mqtt/topics.ts";
import { type AgentProject, agentProject, heartbeat, sleep, until } from "../testing/broker-fixtures.ts";
import { TestServer } from "../testing/harness.ts";
import { type Credentials, MosquittoSub, mosquittoMissing, mosquittoPub } from "./mosquitto-clients.ts";

/**
 * Issue 8 §2 (Medium): MQTT applies the REST role rules per topic. anh_reader has neither
 * telemetry:read nor config:read, so nothing under a project is theirs to read over MQTT.
 */
requirePeer("mosquitto-clients", mosquittoMissing).describe(
  "MQTT subscriptions follow the role's permissions",
  () => {
    let t: TestServer;
    let port: number;
    let a: AgentProject;
    const subs: MosquittoSub[] = [];
    const sub = async (c: Credentials, filters: string[]) => {
      const s = new MosquittoSub(port, c, filters);
      subs.push(s);
      await until("the SUBACK", () => s.subacks.length > 0 || s.exited);
      return s;
    };
    const user = async (role: "anh_reader" | "operador") => {
      const u = await t.userWithRole(role, [a.id]);
      return { username: u.email, password: u.token };
    };

    beforeAll(async () => {
      t = await TestServer.start();
      port = t.server.broker.port;
      a = await agentProject(t);
      // A retained configuration (device hosts, ports, registers) and a retained agent status.
      const deployed = await t.request(`/api/edge/projects/${a.id}/deploy`, {
        method: "POST",
        token: (await t.admin()).token,
      });
      expect(deployed.status).toBe(200);
      expect(
        (await mosquittoPub(port, a.agent, topics.status(a.id), '{"status":"online"}', 1, true)).code,
      ).toBe(0);
    });
    afterAll(async () => {
      await Promise.all(subs.map((s) => s.close()));
      await t.stop();
    });

    it("anh_reader is refused every project topic: live values, agent traffic, config, status", async () => {
      const reader = await user("anh_reader");
      const filters = [
        `caudal/v1/${a.id}/#`,
        `caudal/v1/${a.id}/live/#`,
        `caudal/v1/${a.id}/live/${a.asset}/+`,
        topics.config(a.id),
        topics.configStatus(a.id),
        topics.telemetry(a.id),
        topics.heartbeat(a.id),
        topics.logs(a.id),
        topics.status(a.id),
        topics.ack(a.id),
        `caudal/v1/${a.id}/+/status`,
      ];
      const watch = await sub(reader, filters);
      expect(watch.subacks).toEqual([filters.map(() => 128)]);
      expect((await watch.exit()).stderr).toContain("All subscription requests were denied");
      expect(watch.messages).toEqual([]);
    });

    it("operador, with telemetry:read and config:read, gets the same filters and the retained status", async () => {
      const op = await user("operador");
      const watch = await sub(op, [`caudal/v1/${a.id}/#`]);
      expect(watch.subacks).toEqual([[1]]);
      await until("the retained status", () =>
        watch.messages.some((m) => m.startsWith(`${topics.status(a.id)} `)),
      );
      await mosquittoPub(port, a.agent, topics.heartbeat(a.id), heartbeat("for-operador"));
      await until("the heartbeat", () => watch.messages.some((m) => m.includes("for-operador")));
      await sleep(50);
      // The retained deployment (it carries the OPC UA password) reaches only the agent.
      expect(watch.messages.some((m) => m.startsWith(`${topics.config(a.id)} `))).toBe(false);
    });

    it("no person receives the deployment: the config topic is the agent's alone, even for a superadmin", async () => {
      const admin = await t.admin();
      const creds = { username: admin.email, password: admin.token };
      const exact = await sub(creds, [topics.config(a.id)]);
      expect(exact.subacks).toEqual([[128]]);
      const every = await sub(creds, [`caudal/v1/${a.id}/#`, "caudal/v1/#"]);
      expect(every.subacks).toEqual([[1, 1]]);
      await until("the retained status", () =>
        every.messages.some((m) => m.startsWith(`${topics.status(a.id)} `)),
      );
      await sleep(200);
      expect(every.messages.some((m) => m.startsWith(`${topics.config(a.id)} `))).toBe(false);
    });
  },
);
