import { encodePayload } from "sparkplug-payload/lib/sparkplugbpayload.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import { topics } from "../../../shared/mqtt/topics.ts";
import { type AgentProject, agentProject, heartbeat, sleep, until } from "../../testing/broker-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import {
  hmiCredentials,
  projectNames,
  revokeHmiCredentials,
  updateProject,
} from "../../testing/hmi/hmi-fixtures.ts";
import { tableProbe } from "../../testing/table-probe.ts";
import {
  type Credentials,
  MosquittoSub,
  mosquittoMissing,
  mosquittoPub,
  mosquittoPubBytes,
} from "../mosquitto-clients.ts";

const state = (online: boolean) => JSON.stringify({ online, timestamp: Date.now() });
const rebirth = (value = true) =>
  encodePayload({
    timestamp: Date.now(),
    metrics: [{ name: "Node Control/Rebirth", type: "Boolean", value }],
  });

requirePeer("mosquitto-clients", mosquittoMissing).describe(
  "HMI credentials on the broker, with Debian's mosquitto_pub and mosquitto_sub",
  () => {
    let t: TestServer;
    let port: number;
    let a: AgentProject & { slug: string; hmi: Credentials & { id: string } };
    let b: AgentProject & { slug: string; hmi: Credentials & { id: string } };
    const subs: MosquittoSub[] = [];
    const sub = async (c: Credentials, filters: string[], format?: string) => {
      const s = new MosquittoSub(port, c, filters, format);
      subs.push(s);
      await until("the SUBACK", () => s.subacks.length > 0 || s.exited);
      return s;
    };
    const hmiProject = async (host: string) => {
      const p = await agentProject(t);
      await updateProject(t, p.id, { sparkplug_primary_host_id: host });
      return {
        ...p,
        slug: (await projectNames(t, p.id)).slug,
        hmi: await hmiCredentials(t, p.id, "test HMI", host),
      };
    };

    beforeAll(async () => {
      t = await TestServer.start();
      port = t.server.broker.port;
      a = await hmiProject("host-a");
      b = await hmiProject("host-b");
    });
    afterAll(async () => {
      await Promise.all(subs.map((s) => s.close()));
      await t.stop();
    });

    it("logs in as hmi:<id> with its password only", async () => {
      const topic = `spBv1.0/STATE/host-a`;
      const wrong = await mosquittoPub(port, { ...a.hmi, password: "chm_wrong" }, topic, state(true));
      // [MQTT-3.2.2-3] return code 4: bad user name or password.
      expect(wrong.code).toBe(4);
      expect(
        (await mosquittoPub(port, { ...a.hmi, password: b.hmi.password }, topic, state(true))).code,
      ).toBe(4);
      expect((await mosquittoPub(port, { ...b.hmi, username: "hmi:nope" }, topic, state(true))).code).toBe(4);
      expect((await mosquittoPub(port, a.hmi, topic, state(true), 1, true)).code).toBe(0);
    });

    it("subscribes to any filter that can reach its group, UNS level or STATE (SUBACK 0x80 for the rest)", async () => {
      const own = await sub(a.hmi, [`spBv1.0/${a.slug}/#`, `caudal/uns/${a.slug}/#`, "spBv1.0/STATE/+"]);
      expect(own.subacks).toEqual([[1, 1, 1]]);
      // Wider filters are granted and filtered per message (wildcard-subscriptions.test.ts).
      const wide = await sub(a.hmi, ["spBv1.0/#", "spBv1.0/+/NBIRTH/agent", "caudal/uns/#", "#", "+/+/+/+"]);
      expect(wide.subacks).toEqual([[1, 1, 1, 1, 1]]);
      for (const filter of [
        `spBv1.0/${b.slug}/#`,
        `caudal/uns/${b.slug}/#`,
        `caudal/v1/${a.id}/#`,
        `caudal/v1/${a.id}/live/#`,
        "caudal/v1/#",
        "spBv1.0/STATE/+/more",
        "$SYS/#",
      ]) {
        const denied = await sub(a.hmi, [filter]);
        expect(denied.subacks, filter).toEqual([[128]]);
      }
    });

    it("receives its own primary host's STATE and not another project's; another host's STATE reaches no one", async () => {
      const watch = await sub(a.hmi, ["spBv1.0/STATE/#"]);
      expect((await mosquittoPub(port, b.hmi, "spBv1.0/STATE/host-b", state(true), 1, true)).code).toBe(0);
      // A's login does not speak for B's host, nor for a host its project does not name: such a
      // STATE (a host application must publish its own) is taken, but neither kept nor delivered.
      expect((await mosquittoPub(port, a.hmi, "spBv1.0/STATE/host-b", state(false), 1, true)).code).toBe(0);
      expect((await mosquittoPub(port, a.hmi, "spBv1.0/STATE/elsewhere", state(false), 1, true)).code).toBe(
        0,
      );
      // Not the 3.0 JSON payload: refused too.
      expect((await mosquittoPub(port, a.hmi, "spBv1.0/STATE/host-a", "ONLINE", 1, true)).code).not.toBe(0);
      expect((await mosquittoPub(port, a.hmi, "spBv1.0/STATE/host-a", state(true), 1, true)).code).toBe(0);
      await until("A's STATE", () => watch.messages.some((m) => m.startsWith("spBv1.0/STATE/host-a {")));
      await sleep(200);
      expect(watch.messages.filter((m) => !m.startsWith("spBv1.0/STATE/host-a {"))).toEqual([]);
      // Nothing was retained for those two: a new reader of every STATE gets B's host's only.
      const bWatch = await sub(b.hmi, ["spBv1.0/STATE/#"]);
      await until("B's retained STATE", () => bWatch.messages.length > 0);
      expect(bWatch.messages).toEqual([expect.stringContaining('"online":true')]);
    });

    it("publishes no data: Sparkplug, UNS and agent topics are refused and reach no one", async () => {
      const watch = await sub(a.hmi, [`spBv1.0/${a.slug}/#`, `caudal/uns/${a.slug}/#`]);
      const batches = () => tableProbe(t.server).count("agent_batches", { project_id: a.id });
      const forged = [
        [`spBv1.0/${a.slug}/DDATA/agent/well`, "forged"],
        [`spBv1.0/${a.slug}/NBIRTH/agent`, "forged"],
        [`spBv1.0/${a.slug}/DCMD/agent/well`, "forged"],
        [`caudal/uns/${a.slug}/well/pressure`, '{"value":"forged"}'],
        [topics.heartbeat(a.id), heartbeat("forged")],
      ];
      for (const [topic, message] of forged) {
        const out = await mosquittoPub(port, a.hmi, topic ?? "", message ?? "", 1);
        // The broker closes the connection ([MQTT-3.3.5-2]): no PUBACK comes.
        expect(out.code, topic).not.toBe(0);
      }
      // NCMD: only Rebirth = true, only to its own node, never retained.
      expect(
        (await mosquittoPubBytes(port, a.hmi, `spBv1.0/${a.slug}/NCMD/agent`, rebirth(false))).code,
      ).not.toBe(0);
      expect((await mosquittoPubBytes(port, a.hmi, `spBv1.0/${b.slug}/NCMD/agent`, rebirth())).code).not.toBe(
        0,
      );
      expect((await mosquittoPubBytes(port, a.hmi, `spBv1.0/${a.slug}/NCMD/other`, rebirth())).code).not.toBe(
        0,
      );
      expect(
        (await mosquittoPubBytes(port, a.hmi, `spBv1.0/${a.slug}/NCMD/agent`, rebirth(), 1, true)).code,
      ).not.toBe(0);
      // A rebirth request names the metric [tck-id-operational-behavior-data-commands-ncmd-rebirth-name].
      const byAlias = encodePayload({
        timestamp: Date.now(),
        metrics: [{ alias: 1, type: "Boolean", value: true }],
      });
      expect((await mosquittoPubBytes(port, a.hmi, `spBv1.0/${a.slug}/NCMD/agent`, byAlias)).code).not.toBe(
        0,
      );
      const write = encodePayload({
        timestamp: Date.now(),
        metrics: [{ name: "pressure", type: "Float", value: 1 }],
      });
      expect((await mosquittoPubBytes(port, a.hmi, `spBv1.0/${a.slug}/NCMD/agent`, write)).code).not.toBe(0);
      // The one command it may send: accepted (and seen by the group's readers).
      expect((await mosquittoPubBytes(port, a.hmi, `spBv1.0/${a.slug}/NCMD/agent`, rebirth())).code).toBe(0);
      await until("the rebirth command", () => watch.messages.some((m) => m.includes("/NCMD/agent")));
      await sleep(200);
      expect(watch.messages.filter((m) => !m.startsWith(`spBv1.0/${a.slug}/NCMD/agent `))).toEqual([]);
      expect(await batches()).toBe(0);
    });

    it("stops working at once when revoked: the connection is dropped and the login refused", async () => {
      const extra = await hmiCredentials(t, a.id, "to revoke");
      const watch = await sub(extra, [`caudal/uns/${a.slug}/#`]);
      expect(watch.subacks).toEqual([[1]]);
      const kept = await sub(a.hmi, [`caudal/uns/${a.slug}/#`]);
      await revokeHmiCredentials(t, a.id, extra.id);
      // Dropped at once; mosquitto_sub reconnects with the revoked password and is refused.
      const ended = await watch.exit();
      expect(ended.stderr).toContain("Connection Refused: bad user name or password");
      expect((await mosquittoPub(port, extra, "spBv1.0/STATE/host-a", state(true))).code).toBe(4);
      // Another login of the same project is untouched.
      expect(kept.exited).toBe(false);
    });

    it("deleting the project ends its HMI connections", async () => {
      const c = await hmiProject("host-c");
      const watch = await sub(c.hmi, [`spBv1.0/${c.slug}/#`]);
      const res = await t.request(`/api/edge/projects/${c.id}`, {
        method: "DELETE",
        token: (await t.admin()).token,
      });
      expect(res.status).toBe(204);
      expect((await watch.exit()).stderr).toContain("Connection Refused: bad user name or password");
    });
  },
);
