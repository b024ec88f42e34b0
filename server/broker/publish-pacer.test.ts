import { Aedes } from "aedes";
import { describe, expect, it } from "vitest";
import { PublishPacer, type RawSend } from "./publish-pacer.ts";

describe("PublishPacer", () => {
  it("keeps at most `limit` in flight, urgent first, each lane in order", async () => {
    const sent: string[] = [];
    const pending: (() => void)[] = [];
    let inflight = 0;
    let most = 0;
    const send: RawSend = (topic, _payload, _retain, _qos, done) => {
      sent.push(topic);
      inflight += 1;
      most = Math.max(most, inflight);
      pending.push(() => {
        inflight -= 1;
        done();
      });
    };
    const pacer = new PublishPacer(send, 2);
    const all = [
      pacer.publish("b1", Buffer.alloc(0), true, 0, false),
      pacer.publish("b2", Buffer.alloc(0), true, 0, false),
      pacer.publish("b3", Buffer.alloc(0), true, 0, false),
      pacer.publish("u1", Buffer.alloc(0), false, 0, true),
      pacer.publish("u2", Buffer.alloc(0), false, 1, true),
    ];
    expect(sent).toEqual(["b1", "b2"]);
    while (pending.length > 0) pending.shift()?.();
    await Promise.all(all);
    expect(sent).toEqual(["b1", "b2", "u1", "u2", "b3"]);
    expect(most).toBe(2);
    expect(pacer.pending).toBe(0);
  });

  it("does not recurse when sends complete at once (100,000 in a row)", async () => {
    const pacer = new PublishPacer((_t, _p, _r, _q, done) => done(), 32);
    const all = Array.from({ length: 100_000 }, (_, i) =>
      pacer.publish(`t/${i}`, Buffer.alloc(0), true, 0, false),
    );
    await Promise.all(all);
    expect(pacer.pending).toBe(0);
  });

  it("lets aedes take a 20,000-value retained burst while its emitter is busy delivering", async () => {
    const aedes = await Aedes.createBroker();
    try {
      // A slow subscriber holds the emitter's slots (as a live HMI connection does) …
      aedes.subscribe(
        "live/#",
        (_packet, cb) => setImmediate(cb),
        () => {},
      );
      const pacer = new PublishPacer((topic, payload, retain, qos, done) =>
        aedes.publish({ cmd: "publish", topic, payload, qos, retain, dup: false }, done),
      );
      const busy = Array.from({ length: 200 }, (_, i) =>
        pacer.publish(`live/${i}`, Buffer.from("x"), false, 0, true),
      );
      // … while 20,000 retained values nobody subscribes to arrive in one flush.
      const burst = Array.from({ length: 20_000 }, (_, i) =>
        pacer.publish(`caudal/uns/p/a/v${i}`, Buffer.from("{}"), true, 0, false),
      );
      await Promise.all([...busy, ...burst]);
      expect(pacer.pending).toBe(0);
    } finally {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
    }
  });
});
