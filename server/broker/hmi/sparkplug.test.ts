import { encodePayload } from "sparkplug-payload/lib/sparkplugbpayload.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import { sleep, until } from "../../testing/broker-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";
import { AgentClient } from "../../testing/hmi/agent-client.ts";
import { hmiSite, type Site } from "../../testing/hmi/hmi-fixtures.ts";
import { metricNamed, type SparkplugMessage, SparkplugSub } from "../../testing/hmi/sparkplug-sub.ts";
import { mosquittoMissing, mosquittoPubBytes } from "../mosquitto-clients.ts";

const WELL = "Well 7 (north)";
const TANK = "Tank 1";

/** Every data_type, a unit, a scaled integer, and a disabled variable that HMIs never see. */
const WELL_VARIABLES = [
  { alias: "casing pressure", data_type: "float", unit: "psi" },
  { alias: "temperature", data_type: "float64", unit: "degC" },
  { alias: "level", data_type: "int" },
  { alias: "count", data_type: "uint32" },
  { alias: "running", data_type: "bool" },
  { alias: "flow", data_type: "int16", unit: "bbl/d", scale_factor: 0.1 },
  { alias: "code", data_type: "int32" },
  { alias: "setpoint", data_type: "uint16" },
  { alias: "torque", data_type: "float32", unit: "Nm" },
  { alias: "label", data_type: "string" },
  { alias: "spare", data_type: "float", enabled: false },
];

const types = (m: SparkplugMessage | undefined) =>
  Object.fromEntries((m?.metrics ?? []).map((x) => [x.name ?? `#${x.alias}`, x.type]));

requirePeer("mosquitto-clients", mosquittoMissing).describe(
  "Sparkplug B 3.0, read with Debian's mosquitto_sub and decoded with sparkplug-payload",
  () => {
    let t: TestServer;
    let port: number;
    let site: Site;
    let sub: SparkplugSub;
    let agent: AgentClient | undefined;
    const closers: (() => Promise<void>)[] = [];
    const admin = async () => (await t.admin()).token;
    /** Readings through POST /api/telemetry (source http), as any client might send them. */
    const ingest = async (assetId: string, ts: number, readings: Record<string, number>) => {
      const res = await t.request("/api/telemetry", {
        token: await admin(),
        body: {
          asset_id: assetId,
          timestamp: new Date(ts).toISOString(),
          readings: Object.entries(readings).map(([variable, value]) => ({ variable, value })),
        },
      });
      expect(res.status).toBe(201);
    };

    beforeAll(async () => {
      t = await TestServer.start({ COMM_LOSS_SECONDS: "300" });
      port = t.server.broker.port;
      site = await hmiSite(t, "Campo Chichimene — Clúster 9", {
        [WELL]: WELL_VARIABLES,
        [TANK]: [{ alias: "level", data_type: "float", unit: "ft" }],
      });
      sub = await SparkplugSub.start(port, site.hmi, site.slug);
      closers.push(() => sub.close());
    });
    afterAll(async () => {
      await agent?.vanish().catch(() => {});
      for (const close of closers) await close();
      await t.stop();
    });

    it("the slug is the group and `agent` the node: NBIRTH, a DBIRTH per asset, then DDATA", async () => {
      expect(site.slug).toBe("campo-chichimene-cluster-9");
      const well = site.assets[WELL]?.id ?? "";
      const tank = site.assets[TANK]?.id ?? "";
      // Values committed before the agent comes online are the DBIRTH's current values.
      const t0 = Date.now() - 10_000;
      await ingest(well, t0, { "casing pressure": 700.5, level: -5, count: 4_000_000_000, running: 1 });

      agent = await AgentClient.connect(port, site.projectId, site.agent);
      const births = await sub.after(0, "NBIRTH and two DBIRTHs", (ms) => ms.length >= 3);
      const [nbirth, ...dbirths] = births;
      expect(nbirth?.topic).toBe(`spBv1.0/${site.slug}/NBIRTH/agent`);
      expect(nbirth?.seq).toBe(0);
      expect(Math.abs((nbirth?.timestamp ?? 0) - Date.now())).toBeLessThan(5_000);
      expect(metricNamed(nbirth, "bdSeq")).toMatchObject({ type: "Int64", value: 0 });
      // No alias: any host may ask for a rebirth by name.
      expect(metricNamed(nbirth, "Node Control/Rebirth")).toEqual({
        name: "Node Control/Rebirth",
        type: "Boolean",
        value: false,
        timestamp: nbirth?.timestamp,
        properties: { readOnly: { type: "Boolean", value: false } },
      });
      expect(types(nbirth)).toMatchObject({
        "Node Info/Agent Version": "String",
        "Node Info/Configuration Version": "Int32",
        "Node Info/Buffer Backlog": "UInt64",
      });
      expect(dbirths.map((m) => [m.topic, m.seq])).toEqual([
        [`spBv1.0/${site.slug}/DBIRTH/agent/well-7-north`, 1],
        [`spBv1.0/${site.slug}/DBIRTH/agent/tank-1`, 2],
      ]);
      const wellBirth = dbirths[0];
      // Each data_type's namesake; the scaled int16 is a Double; the disabled variable is absent.
      expect(types(wellBirth)).toEqual({
        "casing pressure": "Float",
        temperature: "Double",
        level: "Int16",
        count: "UInt32",
        running: "Boolean",
        flow: "Double",
        code: "Int32",
        setpoint: "UInt16",
        torque: "Float",
        label: "String",
      });
      const aliases = [...(nbirth?.metrics ?? []), ...dbirths.flatMap((m) => m.metrics)]
        .map((m) => m.alias)
        .filter((a) => a !== undefined);
      // bdSeq and Rebirth have none; every other metric of the node has its own.
      expect(new Set(aliases).size).toBe(aliases.length);
      expect(aliases.length).toBe((nbirth?.metrics.length ?? 0) - 2 + 10 + 1);
      expect(metricNamed(wellBirth, "casing pressure")).toMatchObject({
        value: 700.5,
        timestamp: t0,
        properties: { engUnit: { type: "String", value: "psi" }, Quality: { type: "Int32", value: 192 } },
      });
      expect(metricNamed(wellBirth, "level")).toMatchObject({
        value: -5,
        properties: { Quality: { value: 192 } },
      });
      expect(metricNamed(wellBirth, "count")).toMatchObject({ value: 4_000_000_000 });
      expect(metricNamed(wellBirth, "running")).toMatchObject({ value: true });
      // No value yet: null, quality bad.
      expect(metricNamed(wellBirth, "code")).toMatchObject({
        value: null,
        properties: { engUnit: { value: "" }, Quality: { value: 0 } },
      });
      expect(metricNamed(dbirths[1], "level")).toMatchObject({
        type: "Float",
        properties: { engUnit: { value: "ft" } },
      });

      // The agent's batch: one DDATA per device, by alias, with the readings' own timestamps.
      const alias = (name: string) => metricNamed(wellBirth, name)?.alias;
      const t1 = Date.now();
      const ack = await agent.send([
        { asset_id: well, variable: "casing pressure", unit: "psi", points: [[t1, 812.25]] },
        { asset_id: well, variable: "level", points: [[t1, -32_000]] },
        { asset_id: well, variable: "count", points: [[t1, 4_294_967_295]] },
        { asset_id: well, variable: "code", points: [[t1, -70_000]] },
        { asset_id: well, variable: "setpoint", points: [[t1, 65_535]] },
        { asset_id: well, variable: "flow", points: [[t1, 12.3]] },
        { asset_id: well, variable: "running", points: [[t1, 0]] },
        { asset_id: well, variable: "label", points: [[t1, 42]] },
        { asset_id: well, variable: "not a variable", points: [[t1, 1]] },
        { asset_id: tank, variable: "level", points: [[t1, 14.5]] },
      ]);
      expect(ack.accepted).toBe(10);
      const data = await sub.after(3, "two DDATA", (ms) => ms.length >= 2);
      const wellData = data.find((m) => m.topic.endsWith("/DDATA/agent/well-7-north"));
      const tankData = data.find((m) => m.topic.endsWith("/DDATA/agent/tank-1"));
      expect(data.map((m) => m.seq).sort()).toEqual([3, 4]);
      const byAlias = Object.fromEntries((wellData?.metrics ?? []).map((m) => [m.alias, m]));
      for (const m of wellData?.metrics ?? []) {
        expect(m.name).toBeUndefined();
        expect(m.timestamp).toBe(t1);
      }
      expect(byAlias[alias("casing pressure") ?? -1]).toMatchObject({ type: "Float", value: 812.25 });
      expect(byAlias[alias("level") ?? -1]).toMatchObject({ type: "Int16", value: -32_000 });
      expect(byAlias[alias("count") ?? -1]).toMatchObject({ type: "UInt32", value: 4_294_967_295 });
      expect(byAlias[alias("code") ?? -1]).toMatchObject({ type: "Int32", value: -70_000 });
      expect(byAlias[alias("setpoint") ?? -1]).toMatchObject({ type: "UInt16", value: 65_535 });
      expect(byAlias[alias("flow") ?? -1]).toMatchObject({ type: "Double", value: 12.3 });
      expect(byAlias[alias("running") ?? -1]).toMatchObject({ type: "Boolean", value: false });
      expect(byAlias[alias("label") ?? -1]).toMatchObject({ type: "String", value: "42" });
      expect(wellData?.metrics).toHaveLength(8);
      expect(tankData?.metrics).toEqual([
        expect.objectContaining({ alias: metricNamed(dbirths[1], "level")?.alias, value: 14.5 }),
      ]);
    });

    /** The newest NBIRTH's bdSeq. */
    const lastBdSeq = () =>
      metricNamed(sub.messages.filter((m) => m.type === "NBIRTH").at(-1), "bdSeq")?.value as number;
    const rebirthCommand = () =>
      encodePayload({
        timestamp: Date.now(),
        metrics: [{ name: "Node Control/Rebirth", type: "Boolean", value: true }],
      });

    it("an NCMD Rebirth: NBIRTH with the same bdSeq and seq 0, then every DBIRTH, no NDEATH", async () => {
      const bdSeq = lastBdSeq();
      for (let round = 0; round < 2; round++) {
        const skip = sub.messages.length;
        const sent = await mosquittoPubBytes(
          port,
          site.hmi,
          `spBv1.0/${site.slug}/NCMD/agent`,
          rebirthCommand(),
          0,
        );
        expect(sent.code).toBe(0);
        const after = await sub.after(
          skip,
          "the rebirth",
          (ms) => ms.filter((m) => m.type === "DBIRTH").length >= 2,
        );
        const published = after.filter((m) => m.type !== "NCMD");
        expect(published.map((m) => [m.type, m.seq])).toEqual([
          ["NBIRTH", 0],
          ["DBIRTH", 1],
          ["DBIRTH", 2],
        ]);
        expect(metricNamed(published[0], "bdSeq")?.value).toBe(bdSeq);
        // The births carry the current values.
        expect(metricNamed(published[1], "casing pressure")?.value).toBe(812.25);
        expect(metricNamed(published[1], "level")?.value).toBe(-32_000);
      }
      await sleep(300);
      expect(sub.messages.filter((m) => m.type === "NDEATH")).toEqual([]);
    });

    it("heartbeats become NDATA of the node metrics", async () => {
      const skip = sub.messages.length;
      await agent?.heartbeat({ agentVersion: "1.4.2", configVersion: 7, bufferPoints: 1234 });
      const [ndata] = await sub.after(skip, "NDATA", (ms) => ms.some((m) => m.type === "NDATA"));
      expect(ndata?.topic).toBe(`spBv1.0/${site.slug}/NDATA/agent`);
      expect(ndata?.seq).toBe(3);
      expect(ndata?.metrics.map((m) => [m.alias, m.type, m.value])).toEqual([
        [1, "String", "1.4.2"],
        [2, "Int32", 7],
        [3, "UInt64", 1234],
      ]);
    });

    it("a backlog reaches HMIs in time order as historical DDATA and never replaces the newer value", async () => {
      const well = site.assets[WELL]?.id ?? "";
      const wellBirth = sub.messages
        .filter((m) => m.type === "DBIRTH" && m.topic.endsWith("well-7-north"))
        .at(-1);
      const alias = metricNamed(wellBirth, "temperature")?.alias;
      const live = Date.now();
      await agent?.send([{ asset_id: well, variable: "temperature", points: [[live, 90]] }]);
      await sub.after(0, "the live value", (ms) =>
        ms.some((m) => m.type === "DDATA" && m.metrics.some((x) => x.alias === alias && x.value === 90)),
      );
      const skip = sub.messages.length;
      const points: [number, number][] = Array.from({ length: 30 }, (_, i) => [live - 60_000 + i * 1_000, i]);
      await agent?.send(
        [{ asset_id: well, variable: "temperature", points: points.slice(0, 15) }],
        "backlog",
      );
      await agent?.send([{ asset_id: well, variable: "temperature", points: points.slice(15) }], "backlog");
      const history = await sub.after(
        skip,
        "30 historical values",
        (ms) => ms.flatMap((m) => m.metrics).filter((x) => x.isHistorical).length >= 30,
      );
      const values = history.flatMap((m) => m.metrics).filter((x) => x.alias === alias);
      expect(values.map((x) => [x.timestamp, x.value])).toEqual(points);
      expect(values.every((x) => x.isHistorical === true)).toBe(true);
      // The current value is still the live one.
      const skip2 = sub.messages.length;
      await mosquittoPubBytes(port, site.hmi, `spBv1.0/${site.slug}/NCMD/agent`, rebirthCommand(), 0);
      const births = await sub.after(
        skip2,
        "births",
        (ms) => ms.filter((m) => m.type === "DBIRTH").length >= 2,
      );
      expect(
        metricNamed(
          births.find((m) => m.topic.endsWith("well-7-north")),
          "temperature",
        ),
      ).toMatchObject({
        value: 90,
        timestamp: live,
      });
    });

    it("the agent offline: NDEATH with the NBIRTH's bdSeq; online again: the next bdSeq", async () => {
      const bdSeq = lastBdSeq();
      // The link drops: the broker publishes the agent's last will, its status turns offline.
      let skip = sub.messages.length;
      await agent?.vanish();
      const [death] = await sub.after(skip, "NDEATH", (ms) => ms.some((m) => m.type === "NDEATH"));
      expect(death?.topic).toBe(`spBv1.0/${site.slug}/NDEATH/agent`);
      expect(death?.seq).toBeUndefined();
      expect(death?.metrics).toEqual([
        expect.objectContaining({ name: "bdSeq", type: "Int64", value: bdSeq }),
      ]);

      skip = sub.messages.length;
      agent = await AgentClient.connect(port, site.projectId, site.agent);
      const [birth] = await sub.after(skip, "NBIRTH", (ms) => ms.some((m) => m.type === "NBIRTH"));
      expect(birth?.seq).toBe(0);
      expect(metricNamed(birth, "bdSeq")?.value).toBe(bdSeq + 1);

      // A clean stop says offline too.
      skip = sub.messages.length;
      await agent.stop();
      const [clean] = await sub.after(skip, "NDEATH", (ms) => ms.some((m) => m.type === "NDEATH"));
      expect(metricNamed(clean, "bdSeq")?.value).toBe(bdSeq + 1);
      agent = await AgentClient.connect(port, site.projectId, site.agent);
      await sub.after(skip, "NBIRTH", (ms) => ms.some((m) => m.type === "NBIRTH"));
      expect(lastBdSeq()).toBe(bdSeq + 2);
    });

    it("comm_loss: DDEATH for the silent device only; data again: DBIRTH with good values", async () => {
      const well = site.assets[WELL]?.id ?? "";
      const tank = site.assets[TANK]?.id ?? "";
      const sent = sub.messages.length;
      await agent?.send([{ asset_id: well, variable: "code", points: [[t.clock.now().getTime(), 5]] }]);
      await sub.after(sent, "the DDATA", (ms) => ms.some((m) => m.metrics.some((x) => x.value === 5)));
      t.clock.advance(299_000);
      await agent?.send([{ asset_id: tank, variable: "level", points: [[t.clock.now().getTime(), 15]] }]);
      t.clock.advance(1_000);
      const skip = sub.messages.length;
      expect(await t.server.alarms.tick()).toBe(1);
      const [death] = await sub.after(skip, "DDEATH", (ms) => ms.some((m) => m.type === "DDEATH"));
      expect(death?.topic).toBe(`spBv1.0/${site.slug}/DDEATH/agent/well-7-north`);
      expect(death?.seq).toEqual(expect.any(Number));
      await sleep(200);
      expect(sub.messages.slice(skip).filter((m) => m.type === "DDEATH")).toHaveLength(1);

      const again = sub.messages.length;
      const now = t.clock.now().getTime();
      await agent?.send([{ asset_id: well, variable: "code", points: [[now, 6]] }]);
      const [birth] = await sub.after(again, "DBIRTH", (ms) => ms.some((m) => m.type === "DBIRTH"));
      expect(birth?.topic).toBe(`spBv1.0/${site.slug}/DBIRTH/agent/well-7-north`);
      expect(metricNamed(birth, "code")).toMatchObject({ value: 6, properties: { Quality: { value: 192 } } });
      // seq runs on across the node's messages: the tank's DDATA may come between.
      expect(birth?.seq).toBeGreaterThan(death?.seq ?? 255);
    });

    it("a configuration change births the device again; a deleted asset dies", async () => {
      const token = await admin();
      const deviceId = site.assets[TANK]?.deviceId ?? "";
      let skip = sub.messages.length;
      const added = await t.request<{ id: string }>(`/api/edge/devices/${deviceId}/variables`, {
        token,
        body: { alias: "interface", data_type: "float", register_address: 10, unit: "ft" },
      });
      expect(added.status).toBe(201);
      let [birth] = await sub.after(skip, "a DBIRTH", (ms) => ms.some((m) => m.type === "DBIRTH"));
      expect(birth?.topic).toBe(`spBv1.0/${site.slug}/DBIRTH/agent/tank-1`);
      // In chronological order of their values: the new one has none yet, so it is stamped now.
      expect(birth?.metrics.map((m) => [m.name, m.properties?.engUnit?.value])).toEqual([
        ["level", "ft"],
        ["interface", "ft"],
      ]);
      const stamps = birth?.metrics.map((m) => m.timestamp ?? 0) ?? [];
      expect(stamps).toEqual([...stamps].sort((x, y) => x - y));

      skip = sub.messages.length;
      const changed = await t.request(`/api/edge/variables/${added.body.id}`, {
        method: "PUT",
        token,
        body: { alias: "interface", data_type: "float", register_address: 10, unit: "in" },
      });
      expect(changed.status).toBe(200);
      [birth] = await sub.after(skip, "a DBIRTH", (ms) => ms.some((m) => m.type === "DBIRTH"));
      expect(metricNamed(birth, "interface")?.properties?.engUnit?.value).toBe("in");

      skip = sub.messages.length;
      expect(
        (await t.request(`/api/edge/variables/${added.body.id}`, { method: "DELETE", token })).status,
      ).toBe(204);
      [birth] = await sub.after(skip, "a DBIRTH", (ms) => ms.some((m) => m.type === "DBIRTH"));
      expect(birth?.metrics.map((m) => m.name)).toEqual(["level"]);

      skip = sub.messages.length;
      const gone = await t.request(`/api/edge/assets/${site.assets[TANK]?.id}`, { method: "DELETE", token });
      expect(gone.status).toBe(204);
      const [death] = await sub.after(skip, "a DDEATH", (ms) => ms.some((m) => m.type === "DDEATH"));
      expect(death?.topic).toBe(`spBv1.0/${site.slug}/DDEATH/agent/tank-1`);
    });

    it("a server restart keeps the bdSeq sequence", async () => {
      const bdSeq = lastBdSeq();
      const skip = sub.messages.length;
      await t.restart();
      // A clean stop published the node's NDEATH before the broker closed.
      expect(sub.messages.slice(skip).map((m) => [m.type, metricNamed(m, "bdSeq")?.value])).toEqual([
        ["NDEATH", bdSeq],
      ]);
      port = t.server.broker.port;
      await agent?.vanish().catch(() => {});
      // mosquitto_sub reconnects and subscribes again by itself, as an HMI does.
      await until("mosquitto_sub back", () => sub.raw.subacks.length >= 2, 15_000);
      agent = await AgentClient.connect(port, site.projectId, site.agent);
      const [birth] = await sub.after(skip + 1, "NBIRTH", (ms) => ms.some((m) => m.type === "NBIRTH"));
      expect(metricNamed(birth, "bdSeq")?.value).toBe((bdSeq + 1) % 256);
    });
  },
);
