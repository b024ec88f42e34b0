import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer } from "../../testing/harness.ts";
import type { ServiceContext } from "../context.ts";
import { type ScheduledJob, Scheduler } from "./scheduler.ts";

/** A promise and the function that settles it. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("Scheduler with async jobs", () => {
  let t: TestServer;
  let ctx: ServiceContext;
  beforeAll(async () => {
    t = await TestServer.start();
    ctx = t.server.context;
  });
  afterAll(async () => t.stop());

  it("awaits each job in turn; a failing job is reported and the next still runs", async () => {
    const order: string[] = [];
    const jobs: ScheduledJob[] = [
      {
        name: "slow",
        run: async () => {
          await new Promise((r) => setTimeout(r, 20));
          order.push("slow");
          return 1;
        },
      },
      {
        name: "failing",
        run: async () => {
          order.push("failing");
          throw new Error("no database");
        },
      },
      { name: "sync", run: () => order.push("sync") },
    ];
    const results = await new Scheduler(ctx, jobs).tick();
    expect(order).toEqual(["slow", "failing", "sync"]);
    expect(results).toEqual({ slow: 1, failing: { error: "no database" }, sync: 3 });
  });

  it("never overlaps passes: a tick during a pass runs after it, and stop() waits for it", async () => {
    const gate = deferred();
    const events: string[] = [];
    let pass = 0;
    const scheduler = new Scheduler(ctx, [
      {
        name: "job",
        run: async () => {
          const n = ++pass;
          events.push(`start ${n}`);
          if (n === 1) await gate.promise;
          events.push(`end ${n}`);
          return n;
        },
      },
    ]);
    const first = scheduler.tick();
    const second = scheduler.tick();
    let stopped = false;
    const stopping = scheduler.stop().then(() => {
      stopped = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toEqual(["start 1"]);
    expect(stopped).toBe(false);
    gate.resolve();
    expect(await first).toEqual({ job: 1 });
    expect(await second).toEqual({ job: 2 });
    await stopping;
    expect(events).toEqual(["start 1", "end 1", "start 2", "end 2"]);
  });

  it("the timer skips its turns while a pass runs, rather than queueing them", async () => {
    let running = 0;
    let most = 0;
    let starts = 0;
    const scheduler = new Scheduler(
      ctx,
      [
        {
          name: "job",
          run: async () => {
            starts++;
            running++;
            most = Math.max(most, running);
            await new Promise((r) => setTimeout(r, 25));
            running--;
          },
        },
      ],
      5,
    );
    scheduler.start();
    await new Promise((r) => setTimeout(r, 120));
    const startsBeforeStop = starts;
    await scheduler.stop();
    expect(most).toBe(1);
    expect(running).toBe(0);
    expect(startsBeforeStop).toBeGreaterThanOrEqual(2);
    // Turns queued behind a pass (one every 5 ms, each pass 25 ms) would still be starting now.
    expect(starts).toBe(startsBeforeStop);
  });
});
