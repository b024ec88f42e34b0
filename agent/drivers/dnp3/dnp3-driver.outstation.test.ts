import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedOutstation } from "../../../scripts/sim/dnp3-outstation.ts";
import type { AgentVariable } from "../../../shared/mqtt/agent-config.ts";
import { LinkError, type TagResult } from "../driver.ts";
import { Dnp3Driver } from "./dnp3-driver.ts";
import { RESPONSES, STATIC_RESPONSES } from "./test-vectors.ts";

const MASTER = 1;
const OUTSTATION = 1024;

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function outstation(integrity: readonly string[]): Promise<ScriptedOutstation> {
  const sim = new ScriptedOutstation({ address: OUTSTATION, masterAddress: MASTER, integrity });
  await sim.listen(0);
  cleanup.push(() => sim.close());
  return sim;
}

function driverFor(sim: ScriptedOutstation, timeoutMs = 1000, eventPollIntervalMs = 40): Dnp3Driver {
  const driver = new Dnp3Driver({
    host: "127.0.0.1",
    port: sim.port,
    outstationAddress: OUTSTATION,
    masterAddress: MASTER,
    integrityPollIntervalMs: 60_000,
    eventPollIntervalMs,
    timeoutMs,
  });
  cleanup.push(() => driver.close());
  return driver;
}

const variable = (address: string | null): AgentVariable => ({
  id: randomUUID(),
  alias: address ?? "none",
  data_type: "float32",
  register_address: null,
  register_kind: "holding",
  word_order: "ABCD",
  scale_factor: null,
  unit: null,
  address,
  poll_interval_ms: 1000,
  deadband: 0,
});

async function waitFor(what: string, check: () => boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Reads `v` until `accept` holds for its result; returns that result. */
async function waitForRead(
  driver: Dnp3Driver,
  v: AgentVariable,
  accept: (r: TagResult) => boolean,
  ms = 3000,
): Promise<TagResult> {
  const until = Date.now() + ms;
  for (;;) {
    const [r] = await driver.read([v]);
    if (r && accept(r)) return r;
    if (Date.now() > until)
      throw new Error(`no acceptable reading of ${v.address}; last ${JSON.stringify(r)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const kinds = (sim: ScriptedOutstation, from = 0) =>
  sim.requests.slice(from).map((r) => {
    if (r.func === 0) return `confirm ${r.seq}`;
    if (r.func === 2) return r.clearsRestart ? "clear-restart" : "write-time";
    return r.classes.includes(0) ? "integrity" : "events";
  });

describe("DNP3 driver against the scripted outstation (real TCP)", () => {
  it("polls class 0 at connect, then events, and reads the latest value of each point", async () => {
    const sim = await outstation([STATIC_RESPONSES.g30v5.apdu]);
    const driver = driverFor(sim);
    await driver.connect();
    // Start-up: integrity; the outstation shows a restart, so clear it and poll integrity again.
    await waitFor("start-up to settle", () => kinds(sim).length >= 3);
    expect(kinds(sim).slice(0, 3)).toEqual(["integrity", "clear-restart", "integrity"]);

    const analog = variable("g30:0");
    const analogEvent = variable("g32:23");
    const binary = variable("g1:16");
    let [a, e, b] = await driver.read([analog, analogEvent, binary]);
    expect(a).toEqual({ variableId: analog.id, value: Math.fround(95.6), quality: "good" });
    expect(e?.quality).toBe("config_error");
    expect(b?.quality).toBe("config_error");

    const before = sim.requests.length;
    sim.events.push([RESPONSES.class1Soe]);
    await waitFor("the event response to be confirmed", () => sim.events.length === 0);
    expect(kinds(sim, before)).toEqual(expect.arrayContaining(["events", expect.stringMatching(/^confirm/)]));
    [a, e, b] = await driver.read([analog, analogEvent, binary]);
    expect(a?.value).toBe(Math.fround(95.6));
    expect(e).toEqual({ variableId: analogEvent.id, value: 0x2222, quality: "good" });
    expect(b).toEqual({ variableId: binary.id, value: 1, quality: "good" });
  });

  it("reassembles and confirms a four-fragment class 0 response", async () => {
    const sim = await outstation(RESPONSES.class0FourFragments);
    const driver = driverFor(sim);
    await driver.connect();
    expect(kinds(sim).slice(0, 4)).toEqual(["integrity", "confirm 0", "confirm 1", "confirm 2"]);
    const vars = Array.from({ length: 8 }, (_, i) => variable(`g30:${i}`));
    const results = await driver.read(vars);
    expect(results.map((r) => [r.value, r.quality])).toEqual(Array(8).fill([0, "good"]));
  });

  it("answers a restart IIN with clear-restart and an integrity poll that refreshes the table", async () => {
    const sim = await outstation([STATIC_RESPONSES.g30v5.apdu]);
    const driver = driverFor(sim);
    await driver.connect();
    await waitFor("start-up to settle", () => kinds(sim).includes("events"));
    const analog = variable("g30:0");
    expect((await driver.read([analog]))[0]?.value).toBe(Math.fround(95.6));

    sim.integrity = [STATIC_RESPONSES.g30v2.apdu];
    const before = sim.requests.length;
    sim.restart();
    await waitFor("the post-restart integrity poll", () => kinds(sim, before).includes("integrity"));
    const after = kinds(sim, before).filter((k) => k !== "events");
    expect(after.slice(0, 2)).toEqual(["clear-restart", "integrity"]);
    await waitFor("the integrity response to land", () => sim.restartIin === false);
    await waitForRead(driver, analog, (r) => r.value === 100);
    const [a] = await driver.read([analog]);
    expect(a).toEqual({ variableId: analog.id, value: 100, quality: "good" });
  });

  it("confirms a null unsolicited restart and acts on it", async () => {
    const sim = await outstation([STATIC_RESPONSES.g20v1.apdu]);
    const driver = driverFor(sim, 1000, 60_000);
    await driver.connect();
    await waitFor("start-up to settle", () => kinds(sim).length >= 3);
    const before = sim.requests.length;
    sim.restart();
    sim.sendUnsolicited(RESPONSES.nullUnsolicitedRestart);
    await waitFor("clear-restart", () => kinds(sim, before).includes("integrity"));
    expect(sim.requests[before]).toMatchObject({ func: 0, unsolicited: true, seq: 0 });
    expect(kinds(sim, before + 1)).toEqual(["clear-restart", "integrity"]);
    expect((await driver.read([variable("g20:0")]))[0]).toMatchObject({ value: 5, quality: "good" });
  });

  it("writes the time (g50v1) when the outstation asks for it", async () => {
    const sim = await outstation([STATIC_RESPONSES.g30v5.apdu]);
    const driver = driverFor(sim);
    await driver.connect();
    const asked = Date.now();
    sim.requestTime();
    await waitFor("the time write", () => sim.writtenTime !== undefined);
    expect(sim.writtenTime).toBeGreaterThanOrEqual(asked);
    expect(sim.writtenTime).toBeLessThanOrEqual(Date.now());
    expect(sim.needTime).toBe(false);
  });

  it("reports flags that are not ONLINE and bad addresses per tag", async () => {
    const sim = await outstation([RESPONSES.mixedAnalogs]);
    const driver = driverFor(sim);
    await driver.connect();
    const [restarting, bad, missing] = await driver.read([
      variable("g30:1"),
      variable("g12:0"),
      variable(null),
    ]);
    expect(restarting).toMatchObject({ value: null, quality: "device_exception" });
    expect(restarting?.detail).toContain("restart");
    expect(bad).toMatchObject({ quality: "config_error" });
    expect(bad?.detail).toContain("group 12");
    expect(missing).toMatchObject({ quality: "config_error" });
  });

  it("reports timeout while the outstation is silent, then drops the link", async () => {
    const sim = await outstation([STATIC_RESPONSES.g30v5.apdu]);
    const driver = driverFor(sim, 150, 20);
    await driver.connect();
    sim.mute = true;
    const analog = variable("g30:0");
    const silent = await waitForRead(driver, analog, (r) => r.quality === "timeout");
    expect(silent).toMatchObject({ value: null, quality: "timeout" });
    await waitFor("the link to drop", () => !driver.connected, 3000);
    await expect(driver.read([analog])).rejects.toBeInstanceOf(LinkError);
    await expect(driver.read([analog])).rejects.toThrow(/silent: 3 requests unanswered/);
  });

  it("fails connect with a LinkError when the outstation never answers", async () => {
    const sim = await outstation([STATIC_RESPONSES.g30v5.apdu]);
    sim.mute = true;
    const driver = driverFor(sim, 150);
    await expect(driver.connect()).rejects.toThrow(/no response within 150 ms/);
    expect(driver.connected).toBe(false);
  });
});
