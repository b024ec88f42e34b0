import mqtt, { type MqttClient } from "mqtt";
import { encodePayload } from "sparkplug-payload/lib/sparkplugbpayload.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import { topics } from "../../../shared/mqtt/topics.ts";
import { sleep, until } from "../../testing/broker-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { AgentClient } from "../../testing/hmi/agent-client.ts";
import { hmiCredentials, hmiSite, projectNames, type Site } from "../../testing/hmi/hmi-fixtures.ts";
import { decodeSparkplug, metricNamed, type SparkplugMessage } from "../../testing/hmi/sparkplug-sub.ts";
import {
  type Credentials,
  MosquittoSub,
  mosquittoMissing,
  mosquittoPub,
  mosquittoPubBytes,
} from "../mosquitto-clients.ts";

const rebirth = () =>
  encodePayload({
    timestamp: Date.now(),
    metrics: [{ name: "Node Control/Rebirth", type: "Boolean", value: true }],
  });

/** "topic hex" lines of mosquitto_sub -F "%t %x", Sparkplug ones decoded. */
const sparkplugOf = (lines: string[]) =>
  lines
    .filter((l) => l.startsWith("spBv1.0/") && !l.startsWith("spBv1.0/STATE/"))
    .map((l) => decodeSparkplug(l.slice(0, l.indexOf(" ")), Buffer.from(l.slice(l.indexOf(" ") + 1), "hex")));

/*
 * A Sparkplug host application subscribes to spBv1.0/# by default (Ignition's MQTT Engine), and some
 * HMIs to #: granted, and each message checked as it is delivered (issue 28 §2), as Mosquitto's ACLs
 * and HiveMQ do. Projects A and B both publish; A's login reads A's group, UNS level and STATE only.
 */
requirePeer("mosquitto-clients", mosquittoMissing).describe(
  "HMI wildcard subscriptions, with mosquitto_sub and a Sparkplug host on sparkplug-payload + mqtt",
  () => {
    let t: TestServer;
    let port: number;
    let a: Site;
    let b: Site;
    let agentA: AgentClient;
    let agentB: AgentClient;
    const closers: (() => Promise<unknown>)[] = [];
    const wellOf = (s: Site) => s.assets.Well?.id ?? "";
    const sub = async (c: Credentials, filters: string[], format = "%t %x") => {
      const s = new MosquittoSub(port, c, filters, format);
      closers.push(() => s.close());
      await until("the SUBACK", () => s.subacks.length > 0 || s.exited);
      return s;
    };
    let value = 100;
    /** One reading from each project's agent (committed when this resolves). */
    const bothPublish = async () => {
      value += 1;
      await Promise.all([
        agentA.send([{ asset_id: wellOf(a), variable: "pressure", points: [[Date.now(), value]] }]),
        agentB.send([{ asset_id: wellOf(b), variable: "pressure", points: [[Date.now(), value]] }]),
      ]);
      return value;
    };
    /** B's own reader, to know that B has published by the time A's readers are checked. */
    let bReader: MosquittoSub;
    const bPublished = (v: number) =>
      until(`B's DDATA ${v}`, () =>
        sparkplugOf(bReader.messages).some((m) => m.type === "DDATA" && m.metrics.some((x) => x.value === v)),
      );
    const hasData = (lines: string[], v: number) =>
      sparkplugOf(lines).some((m) => m.type === "DDATA" && m.metrics.some((x) => x.value === v));

    beforeAll(async () => {
      t = await TestServer.start();
      port = t.server.broker.port;
      a = await hmiSite(t, "Field A", { Well: [{ alias: "pressure", data_type: "float", unit: "psi" }] });
      b = await hmiSite(t, "Field B", { Well: [{ alias: "pressure", data_type: "float", unit: "psi" }] });
      bReader = await sub(b.hmi, [`spBv1.0/${b.slug}/#`]);
    });
    afterAll(async () => {
      await agentA?.vanish().catch(() => {});
      await agentB?.vanish().catch(() => {});
      for (const close of closers) await close();
      await t.stop();
    });

    it("mosquitto_sub -t 'spBv1.0/#' and -t '#': A's births and data arrive, nothing of B, no agent topic", async () => {
      const spAll = await sub(a.hmi, ["spBv1.0/#"]);
      const all = await sub(a.hmi, ["#"]);
      expect([spAll.subacks, all.subacks]).toEqual([[[1]], [[1]]]);
      agentA = await AgentClient.connect(port, a.projectId, a.agent);
      agentB = await AgentClient.connect(port, b.projectId, b.agent);
      await bothPublish();
      const born = (lines: string[]) =>
        ["NBIRTH", "DBIRTH"].every((type) => sparkplugOf(lines).some((m) => m.type === type));
      for (const w of [spAll, all, bReader]) await until("the births", () => born(w.messages));
      // Born: the next readings go out as DDATA.
      const v = await bothPublish();
      for (const w of [spAll, all]) await until("A's data", () => hasData(w.messages, v));
      await until("A's unified namespace through #", () =>
        all.messages.some((m) => m.startsWith(`caudal/uns/${a.slug}/`)),
      );
      await bPublished(v);
      await sleep(300);
      for (const w of [spAll, all]) {
        const foreign = w.messages.filter(
          (m) => !m.startsWith(`spBv1.0/${a.slug}/`) && !m.startsWith(`caudal/uns/${a.slug}/`),
        );
        expect(foreign).toEqual([]);
      }
      const births = sparkplugOf(spAll.messages).filter((m) => m.type === "DBIRTH");
      expect(metricNamed(births[0], "pressure")).toMatchObject({ type: "Float" });
    });

    it("a Rebirth request (NCMD Node Control/Rebirth) still works for a login subscribed to spBv1.0/#", async () => {
      // Births are not retained: a reader that comes late asks for them.
      const spAll = await sub(a.hmi, ["spBv1.0/#"]);
      const births = () => sparkplugOf(spAll.messages).filter((m) => m.type === "NBIRTH").length;
      expect(births()).toBe(0);
      expect((await mosquittoPubBytes(port, a.hmi, `spBv1.0/${a.slug}/NCMD/agent`, rebirth())).code).toBe(0);
      await until("the NBIRTH again", () => births() === 1);
      // Still not another project's node.
      expect((await mosquittoPubBytes(port, a.hmi, `spBv1.0/${b.slug}/NCMD/agent`, rebirth())).code).not.toBe(
        0,
      );
    });

    it("a Sparkplug host application (sparkplug-payload + mqtt) on spBv1.0/#: births, data, rebirth, only A", async () => {
      const host: MqttClient = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
        username: a.hmi.username,
        password: a.hmi.password,
        reconnectPeriod: 0,
        will: {
          topic: "spBv1.0/STATE/ignition-a",
          payload: Buffer.from(JSON.stringify({ online: false, timestamp: Date.now() })),
          qos: 1,
          retain: true,
        },
      });
      closers.push(() => host.endAsync(true));
      const got: SparkplugMessage[] = [];
      const states: string[] = [];
      host.on("message", (topic, payload) => {
        if (topic.startsWith("spBv1.0/STATE/")) states.push(topic);
        else got.push(decodeSparkplug(topic, payload));
      });
      const granted = await host.subscribeAsync("spBv1.0/#", { qos: 1 });
      expect(granted.map((g) => g.qos)).toEqual([1]);
      // A host application announces itself [tck-id-host-topic-phid-birth-required]: a host id the
      // project did not give this login is taken and dropped, and the connection stays.
      await host.publishAsync(
        "spBv1.0/STATE/ignition-a",
        JSON.stringify({ online: true, timestamp: Date.now() }),
        { qos: 1, retain: true },
      );
      // As a host does when it joins late: ask the node for its births.
      await host.publishAsync(`spBv1.0/${a.slug}/NCMD/agent`, Buffer.from(rebirth()), { qos: 0 });
      await until("the NBIRTH and DBIRTH", () =>
        ["NBIRTH", "DBIRTH"].every((type) => got.some((m) => m.type === type)),
      );
      const nbirth = got.find((m) => m.type === "NBIRTH");
      expect(metricNamed(nbirth, "bdSeq")).toBeDefined();
      const v = await bothPublish();
      await until("the DDATA", () =>
        got.some((m) => m.type === "DDATA" && m.metrics.some((x) => x.value === v)),
      );
      await bPublished(v);
      await sleep(300);
      expect(got.filter((m) => !m.topic.startsWith(`spBv1.0/${a.slug}/`))).toEqual([]);
      expect(states).toEqual([]);
      expect(host.connected).toBe(true);
    });

    it("agent batches and acks never reach an HMI's #, even while a person's # fans them out", async () => {
      const hmiAll = await sub(a.hmi, ["#"], "%t");
      const admin = await t.admin();
      const person = await sub({ username: admin.email, password: admin.token }, ["#"], "%t");
      const v = await bothPublish();
      await until("the person's batch", () => person.messages.includes(topics.telemetry(a.projectId)));
      await until("the HMI's DDATA", () =>
        hmiAll.messages.some((m) => m.startsWith(`spBv1.0/${a.slug}/DDATA/`)),
      );
      await bPublished(v);
      await sleep(200);
      expect(hmiAll.messages.filter((m) => m.startsWith("caudal/v1/"))).toEqual([]);
      // The person reads no Sparkplug or UNS topic: those are the HMIs'.
      expect(person.messages.filter((m) => !m.startsWith("caudal/v1/"))).toEqual([]);
    });

    it("a project with no asset yet: its login's own group and UNS level are granted, and its STATE taken", async () => {
      const id = await t.project();
      const { slug } = await projectNames(t, id);
      const login = await hmiCredentials(t, id, "early HMI");
      expect(
        (
          await mosquittoPub(
            port,
            login,
            "spBv1.0/STATE/early-host",
            JSON.stringify({ online: true, timestamp: Date.now() }),
          )
        ).code,
      ).toBe(0);
      const own = await sub(login, [`spBv1.0/${slug}/#`, `caudal/uns/${slug}/#`, "spBv1.0/#"]);
      expect(own.subacks).toEqual([[1, 1, 1]]);
      expect((await sub(login, [`spBv1.0/${a.slug}/#`])).subacks).toEqual([[128]]);
    });
  },
);
