import { afterAll, beforeAll, expect, it } from "vitest";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import { sleep } from "../../testing/broker-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { AgentClient } from "../../testing/hmi/agent-client.ts";
import { hmiSite, type Site, updateProject } from "../../testing/hmi/hmi-fixtures.ts";
import { metricNamed, SparkplugSub } from "../../testing/hmi/sparkplug-sub.ts";
import { mosquittoMissing, mosquittoPub } from "../mosquitto-clients.ts";

const HOST = "scada-1";

requirePeer("mosquitto-clients", mosquittoMissing).describe(
  "Sparkplug B 3.0 primary host: spBv1.0/STATE/{host_id} with the JSON {online, timestamp}",
  () => {
    let t: TestServer;
    let port: number;
    let site: Site;
    let sub: SparkplugSub;
    let agent: AgentClient;
    let other: { site: Site; sub: SparkplugSub; agent: AgentClient };
    const state = (online: boolean, timestamp = Date.now()) =>
      mosquittoPub(port, site.hmi, `spBv1.0/STATE/${HOST}`, JSON.stringify({ online, timestamp }), 1, true);
    const well = () => site.assets.Well?.id ?? "";

    beforeAll(async () => {
      t = await TestServer.start();
      port = t.server.broker.port;
      site = await hmiSite(
        t,
        "Hosted field",
        { Well: [{ alias: "pressure", data_type: "float", unit: "psi" }] },
        {
          sparkplug_primary_host_id: HOST,
        },
      );
      sub = await SparkplugSub.start(port, site.hmi, site.slug);
      agent = await AgentClient.connect(port, site.projectId, site.agent);
      // A project without a primary host beside it publishes at once, whatever the host does.
      const otherSite = await hmiSite(t, "Free field", { Well: [{ alias: "pressure", data_type: "float" }] });
      other = {
        site: otherSite,
        sub: await SparkplugSub.start(port, otherSite.hmi, otherSite.slug),
        agent: await AgentClient.connect(port, otherSite.projectId, otherSite.agent),
      };
    });
    afterAll(async () => {
      await agent.vanish().catch(() => {});
      await other.agent.vanish().catch(() => {});
      await sub.close();
      await other.sub.close();
      await t.stop();
    });

    it("publishes nothing for the group while the host has said nothing, or offline", async () => {
      await agent.send([{ asset_id: well(), variable: "pressure", points: [[Date.now(), 1]] }]);
      await other.sub.after(0, "the other project's births", (ms) => ms.some((m) => m.type === "DBIRTH"));
      await sleep(400);
      expect(sub.messages).toEqual([]);
      expect((await state(false)).code).toBe(0);
      await agent.send([{ asset_id: well(), variable: "pressure", points: [[Date.now(), 2]] }]);
      await sleep(400);
      expect(sub.messages).toEqual([]);
    });

    it("the host online: births follow, with the current value; what came meanwhile arrives as history", async () => {
      const away = Date.now();
      const ack = await agent.send([
        {
          asset_id: well(),
          variable: "pressure",
          points: [
            [away, 10],
            [away + 1, 11],
            [away + 2, 12],
          ],
        },
      ]);
      expect(ack.accepted).toBe(3);
      expect((await state(true)).code).toBe(0);
      const got = await sub.after(0, "births and history", (ms) => ms.some((m) => m.type === "DDATA"));
      expect(got.map((m) => [m.type, m.seq])).toEqual([
        ["NBIRTH", 0],
        ["DBIRTH", 1],
        ["DDATA", 2],
      ]);
      expect(metricNamed(got[0], "bdSeq")?.value).toBe(0);
      expect(metricNamed(got[1], "pressure")).toMatchObject({ value: 12, timestamp: away + 2 });
      // Sent while the host was away and superseded before it came back: historical, in time order.
      expect(got[2]?.metrics.map((m) => [m.value, m.timestamp, m.isHistorical])).toEqual([
        [1, expect.any(Number), true],
        [2, expect.any(Number), true],
        [10, away, true],
        [11, away + 1, true],
      ]);
    });

    it("the host offline again: silence (no death either); a STATE older than the last one is ignored", async () => {
      let skip = sub.messages.length;
      expect((await state(false)).code).toBe(0);
      await agent.send([{ asset_id: well(), variable: "pressure", points: [[Date.now(), 20]] }]);
      await agent.heartbeat({ agentVersion: "9.9.9", configVersion: 1, bufferPoints: 0 });
      await sleep(400);
      expect(sub.messages.slice(skip)).toEqual([]);
      // An online STATE stamped before the offline one: stale, ignored.
      expect((await state(true, Date.now() - 60_000)).code).toBe(0);
      await sleep(400);
      expect(sub.messages.slice(skip)).toEqual([]);

      skip = sub.messages.length;
      expect((await state(true)).code).toBe(0);
      const got = await sub.after(skip, "births", (ms) => ms.some((m) => m.type === "DBIRTH"));
      expect(got.slice(0, 2).map((m) => [m.type, m.seq])).toEqual([
        ["NBIRTH", 0],
        ["DBIRTH", 1],
      ]);
      // Same agent session: same bdSeq.
      expect(metricNamed(got[0], "bdSeq")?.value).toBe(0);
      expect(metricNamed(got[0], "Node Info/Agent Version")?.value).toBe("9.9.9");
      expect(metricNamed(got[1], "pressure")?.value).toBe(20);
    });

    it("naming another primary host waits for that host; removing it publishes at once", async () => {
      let skip = sub.messages.length;
      await updateProject(t, site.projectId, { sparkplug_primary_host_id: "scada-2" });
      await sleep(400);
      expect(sub.messages.slice(skip)).toEqual([]);
      skip = sub.messages.length;
      await updateProject(t, site.projectId, { sparkplug_primary_host_id: null });
      const got = await sub.after(skip, "births", (ms) => ms.some((m) => m.type === "DBIRTH"));
      expect(got[0]?.type).toBe("NBIRTH");
    });
  },
);
