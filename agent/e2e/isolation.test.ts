import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SilentPeer } from "../../scripts/sim/black-hole.ts";
import type { CaudalAgent } from "../agent.ts";
import { Pipeline, sleep } from "../testing/pipeline.ts";

type Row = { timestamp: string };

/**
 * Isolation (issue 9 "Done when"): one dead device of each protocol (a peer that accepts TCP and
 * never answers, the hardest case: no refusal, only silence) beside the pipeline's live Modbus
 * well, all in one agent. The well keeps its rate; each dead device reports failing on its own.
 */
describe("a dead device of each protocol never delays or stops the others", () => {
  let p: Pipeline;
  let token: string;
  let agent: CaudalAgent;
  const dead = {
    modbus_tcp: new SilentPeer(),
    opc_ua: new SilentPeer(),
    s7: new SilentPeer(),
    dnp3: new SilentPeer(),
  };
  const ADDRESS = {
    modbus_tcp: null,
    opc_ua: "ns=1;s=Separator.Pressure",
    s7: "DB1,REAL0",
    dnp3: "g30:0",
  } as const;

  beforeAll(async () => {
    p = await Pipeline.start({ pollIntervalMs: 200, autoDeploy: false });
    token = (await p.t.admin()).token;
    for (const [protocol, peer] of Object.entries(dead) as [keyof typeof dead, SilentPeer][]) {
      await peer.listen();
      const asset = await p.t.asset(p.projectId, "station");
      const device = await p.t.request<{ id: string }>(`/api/edge/assets/${asset}/devices`, {
        token,
        body: {
          name: `dead ${protocol}`,
          protocol,
          host: "127.0.0.1",
          port: peer.port,
          slave_id: protocol === "s7" || protocol === "opc_ua" ? null : 1,
          ...(protocol === "dnp3" ? { settings: { master_address: 2 } } : {}),
        },
      });
      expect(device.status).toBe(201);
      const address = ADDRESS[protocol];
      const v = await p.t.request(`/api/edge/devices/${device.body.id}/variables`, {
        token,
        body: {
          alias: "p",
          data_type: "float32",
          poll_interval_ms: 200,
          ...(address ? { address } : { register_address: 0 }),
        },
      });
      expect(v.status).toBe(201);
    }
    agent = p.newAgent();
    await agent.start();
    await p.waitDeployment((await p.deploy()).id);
  }, 60_000);
  afterAll(async () => {
    await agent?.stop();
    await p?.stop();
    for (const peer of Object.values(dead)) await peer.close();
  });

  it("the live well keeps its rate while four dead devices fail, each on its own", async () => {
    p.moveWell(50);
    try {
      const since = Date.now();
      await sleep(4000);
      const res = await p.t.request<Row[]>(`/api/telemetry/${p.assetId}?limit=1000`, { token });
      expect(res.status).toBe(200);
      // Polled every 200 ms with moving values: about 20 timestamps in 4 s. Any dead device
      // blocking the others would leave far fewer.
      expect(res.body.filter((r) => Date.parse(r.timestamp) >= since).length).toBeGreaterThanOrEqual(12);
      const devices = agent.status().devices;
      for (const protocol of Object.keys(dead)) {
        const d = devices.find((x) => x.name === `dead ${protocol}`);
        expect(d?.state, protocol).toBe("failing");
      }
      expect(devices.find((x) => x.name === "Wellhead PLC")?.state).toBe("ok");
      for (const peer of Object.values(dead)) expect(peer.connectedAt.length).toBeGreaterThan(0);
    } finally {
      p.stopWell();
    }
  }, 30_000);
});
