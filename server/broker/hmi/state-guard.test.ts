import { afterAll, beforeAll, expect, it } from "vitest";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import { sleep, until } from "../../testing/broker-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { AgentClient } from "../../testing/hmi/agent-client.ts";
import { hmiCredentials, hmiSite, type Site } from "../../testing/hmi/hmi-fixtures.ts";
import { SparkplugSub } from "../../testing/hmi/sparkplug-sub.ts";
import { type Credentials, MosquittoSub, mosquittoMissing, mosquittoPub } from "../mosquitto-clients.ts";

const HOST = "guarded-host";
/** The forged STATE of the security review: offline, stamped some 285,000 years ahead. */
const FAR_AHEAD = 9e15;

requirePeer("mosquitto-clients", mosquittoMissing).describe(
  "Sparkplug STATE from HMI logins (issue 28): only the host id the project gave the login, never stamped far ahead",
  () => {
    let t: TestServer;
    let port: number;
    let site: Site;
    /** Another login of the same project, given no host id. */
    let panel: Credentials & { id: string };
    let sub: SparkplugSub;
    let agent: AgentClient;
    const subs: MosquittoSub[] = [];
    const state = (c: Credentials, online: boolean, timestamp = Date.now()) =>
      mosquittoPub(port, c, `spBv1.0/STATE/${HOST}`, JSON.stringify({ online, timestamp }), 1, true);
    const well = () => site.assets.Well?.id ?? "";
    let value = 0;
    /** A reading from the agent; resolves once it is committed. */
    const reading = async () => {
      value += 1;
      await agent.send([{ asset_id: well(), variable: "pressure", points: [[Date.now(), value]] }]);
      return value;
    };
    /** Whether the group publishes: a new reading arrives as DDATA. */
    const dataFlows = async () => {
      const skip = sub.messages.length;
      const v = await reading();
      await sub.after(skip, `DDATA ${v}`, (ms) =>
        ms.some((m) => m.type === "DDATA" && m.metrics.some((x) => x.value === v)),
      );
    };
    /** The retained STATE a new reader of the host's topic gets. */
    const retainedState = async (c: Credentials) => {
      const s = new MosquittoSub(port, c, [`spBv1.0/STATE/${HOST}`]);
      subs.push(s);
      await until("the retained STATE", () => s.messages.length > 0);
      return JSON.parse(s.messages[0]?.slice(s.messages[0].indexOf(" ") + 1) ?? "{}") as {
        online: boolean;
        timestamp: number;
      };
    };

    beforeAll(async () => {
      // Production mode, as the security review ran it.
      t = await TestServer.start({ NODE_ENV: "production" });
      port = t.server.broker.port;
      site = await hmiSite(
        t,
        "Guarded field",
        { Well: [{ alias: "pressure", data_type: "float" }] },
        { sparkplug_primary_host_id: HOST },
      );
      panel = await hmiCredentials(t, site.projectId, "panel without a host id");
      sub = await SparkplugSub.start(port, site.hmi, site.slug);
      agent = await AgentClient.connect(port, site.projectId, site.agent);
      expect((await state(site.hmi, true)).code).toBe(0);
      await sub.after(0, "births", (ms) => ms.some((m) => m.type === "DBIRTH"));
    });
    afterAll(async () => {
      await agent.vanish().catch(() => {});
      await Promise.all(subs.map((s) => s.close()));
      await sub.close();
      await t.stop();
    });

    it("a login the project gave no host id cannot take the host offline: taken, dropped, not retained", async () => {
      expect((await state(panel, false, FAR_AHEAD)).code).toBe(0);
      expect((await state(panel, false)).code).toBe(0);
      await dataFlows();
      expect(await retainedState(panel)).toMatchObject({ online: true });
    });

    it("the host's own login: a STATE stamped far ahead is dropped, and its next STATEs still count", async () => {
      expect((await state(site.hmi, false, FAR_AHEAD)).code).toBe(0);
      await dataFlows();
      expect((await retainedState(panel)).online).toBe(true);
      // A little ahead (a host's clock may run fast) is honoured: offline, so the group is silent.
      expect((await state(site.hmi, false, Date.now() + 60_000)).code).toBe(0);
      let skip = sub.messages.length;
      await reading();
      await sleep(400);
      expect(sub.messages.slice(skip)).toEqual([]);
      skip = sub.messages.length;
      expect((await state(site.hmi, true, Date.now() + 61_000)).code).toBe(0);
      await sub.after(skip, "births again", (ms) => ms.some((m) => m.type === "NBIRTH"));
      await dataFlows();
    });

    it("given another host id, the login's connections close; its STATE for the old id no longer counts", async () => {
      const watch = new MosquittoSub(port, site.hmi, [`caudal/uns/${site.slug}/#`]);
      subs.push(watch);
      await until("the SUBACK", () => watch.subacks.length > 0);
      const res = await t.request(`/api/edge/projects/${site.projectId}/mqtt-credentials/${site.hmi.id}`, {
        method: "PATCH",
        token: (await t.admin()).token,
        body: { name: "test HMI", primary_host_id: "another-host" },
      });
      expect(res.status).toBe(200);
      // Dropped, and mosquitto_sub, as an HMI would, connects and subscribes again.
      await until("the second SUBACK", () => watch.subacks.length > 1);
      expect((await state(site.hmi, false, Date.now() + 120_000)).code).toBe(0);
      await dataFlows();
    });
  },
);
