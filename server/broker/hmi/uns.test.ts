import { afterAll, beforeAll, expect, it } from "vitest";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import type { UnsPayload } from "../../../shared/mqtt/hmi-topics.ts";
import { sleep, until } from "../../testing/broker-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { hmiSite, type Site } from "../../testing/hmi/hmi-fixtures.ts";
import { MosquittoSub, mosquittoMissing } from "../mosquitto-clients.ts";

type UnsMessage = { topic: string; retained: boolean; body: UnsPayload | null };

requirePeer("mosquitto-clients", mosquittoMissing).describe(
  "the unified namespace caudal/uns/{project}/{asset}/{variable}, read with Debian's mosquitto_sub",
  () => {
    let t: TestServer;
    let port: number;
    let site: Site;
    const subs: MosquittoSub[] = [];
    const well = () => site.assets["Well 3"]?.id ?? "";
    const ingest = async (ts: number, readings: Record<string, number>) => {
      const res = await t.request("/api/telemetry", {
        token: (await t.admin()).token,
        body: {
          asset_id: well(),
          timestamp: new Date(ts).toISOString(),
          readings: Object.entries(readings).map(([variable, value]) => ({ variable, value })),
        },
      });
      expect(res.status).toBe(201);
    };
    /** A new mosquitto_sub (-F "%t %r %p": topic, retain flag, payload) on the project's UNS level. */
    const subscribe = async () => {
      const s = new MosquittoSub(port, site.hmi, [`caudal/uns/${site.slug}/#`], "%t %r %p");
      subs.push(s);
      await until("the SUBACK", () => s.subacks.length > 0);
      expect(s.subacks).toEqual([[1]]);
      return s;
    };
    const messages = (s: MosquittoSub): UnsMessage[] =>
      s.messages.map((line) => {
        const [topic = "", retained, ...rest] = line.split(" ");
        const payload = rest.join(" ");
        return {
          topic,
          retained: retained === "1",
          body: payload ? (JSON.parse(payload) as UnsPayload) : null,
        };
      });
    const latest = (s: MosquittoSub) => new Map(messages(s).map((m) => [m.topic, m.body]));
    const topic = (asset: string, variable: string) => `caudal/uns/${site.slug}/${asset}/${variable}`;

    beforeAll(async () => {
      t = await TestServer.start({ COMM_LOSS_SECONDS: "300" });
      port = t.server.broker.port;
      site = await hmiSite(t, "UNS field", {
        "Well 3": [
          { alias: "Casing Pressure", data_type: "float", unit: "psi" },
          { alias: "running", data_type: "bool" },
          { alias: "count", data_type: "uint32" },
          { alias: "spare", data_type: "float", unit: "bar" },
          { alias: "never", data_type: "float" },
        ],
      });
    });
    afterAll(async () => {
      await Promise.all(subs.map((s) => s.close()));
      await t.stop();
    });

    it("holds each variable's newest value, retained, as {value, unit, timestamp, quality}", async () => {
      const ts = Date.now() - 5_000;
      await ingest(ts, { "Casing Pressure": 812.5, running: 1, count: 4_000_000_000, spare: 2.5 });
      // An older reading never replaces a newer one.
      await ingest(ts - 1_000, { "Casing Pressure": 1 });
      await sleep(1_300);
      const s = await subscribe();
      await until("four retained values", () => messages(s).length >= 4);
      await sleep(200);
      const got = messages(s);
      expect(got.every((m) => m.retained)).toBe(true);
      const at = new Date(ts).toISOString();
      expect(Object.fromEntries(got.map((m) => [m.topic, m.body]))).toEqual({
        [topic("well-3", "casing-pressure")]: { value: 812.5, unit: "psi", timestamp: at, quality: "good" },
        [topic("well-3", "running")]: { value: true, unit: null, timestamp: at, quality: "good" },
        [topic("well-3", "count")]: { value: 4_000_000_000, unit: null, timestamp: at, quality: "good" },
        [topic("well-3", "spare")]: { value: 2.5, unit: "bar", timestamp: at, quality: "good" },
      });
    });

    it("a deleted variable's retained value is cleared; a renamed asset's values move", async () => {
      const s = await subscribe();
      await until("the retained values", () => messages(s).length >= 4);
      const token = (await t.admin()).token;
      const list = await t.request<{ id: string; alias: string }[]>(
        `/api/edge/devices/${site.assets["Well 3"]?.deviceId}/variables`,
        { token },
      );
      const spare = list.body.find((v) => v.alias === "spare");
      expect((await t.request(`/api/edge/variables/${spare?.id}`, { method: "DELETE", token })).status).toBe(
        204,
      );
      // The live subscriber sees the zero-byte message that removes the retained value.
      await until("the clear", () =>
        messages(s).some((m) => m.topic === topic("well-3", "spare") && m.body === null),
      );
      const fresh = await subscribe();
      await until("the retained values", () => messages(fresh).length >= 3);
      await sleep(300);
      expect([...latest(fresh).keys()].sort()).toEqual(
        [topic("well-3", "casing-pressure"), topic("well-3", "count"), topic("well-3", "running")].sort(),
      );

      const renamed = await t.request(`/api/edge/assets/${well()}`, {
        method: "PUT",
        token,
        body: { project_id: site.projectId, name: "Well 3B", asset_type: "well" },
      });
      expect(renamed.status).toBe(200);
      await until("the move", () => latest(s).get(topic("well-3b", "casing-pressure")) !== undefined);
      await until("the old topics cleared", () => latest(s).get(topic("well-3", "casing-pressure")) === null);
      const after = await subscribe();
      await until("the retained values", () => messages(after).length >= 3);
      await sleep(300);
      expect([...latest(after).keys()].every((k) => k.startsWith(`caudal/uns/${site.slug}/well-3b/`))).toBe(
        true,
      );
      expect(latest(after).get(topic("well-3b", "casing-pressure"))).toMatchObject({
        value: 812.5,
        unit: "psi",
      });
    });

    it("comm_loss turns the values bad; data again, good", async () => {
      const s = await subscribe();
      await until("the retained values", () => messages(s).length >= 3);
      t.clock.advance(300_000);
      expect(await t.server.alarms.tick()).toBe(1);
      await until("bad quality", () => latest(s).get(topic("well-3b", "count"))?.quality === "bad");
      expect(latest(s).get(topic("well-3b", "count"))).toMatchObject({
        value: 4_000_000_000,
        quality: "bad",
      });
      await ingest(t.clock.now().getTime(), { count: 8 });
      await until("good again", () => latest(s).get(topic("well-3b", "count"))?.quality === "good");
      expect(latest(s).get(topic("well-3b", "count"))).toMatchObject({ value: 8, quality: "good" });
      await until("every value good", () => [...latest(s).values()].every((b) => b?.quality === "good"));
    });
  },
);
