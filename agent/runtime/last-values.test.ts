import { describe, expect, it } from "vitest";
import { LastValues } from "./last-values.ts";

const a = { id: "id-a", alias: "pressure" };
const b = { id: "id-b", alias: "flow" };

describe("LastValues", () => {
  it("lists the newest reading of each variable, in first-seen order, with ISO times", () => {
    const last = new LastValues();
    last.set(a, "dev-1", { value: 1, quality: "good" }, Date.UTC(2026, 0, 1));
    last.set(
      b,
      "dev-2",
      { value: null, quality: "timeout", detail: "no reply" },
      Date.UTC(2026, 0, 1, 0, 0, 1),
    );
    last.set(a, "dev-1", { value: 2.5, quality: "good" }, Date.UTC(2026, 0, 1, 0, 0, 2));
    expect(last.list()).toEqual([
      { alias: "pressure", device_id: "dev-1", value: 2.5, quality: "good", ts: "2026-01-01T00:00:02.000Z" },
      {
        alias: "flow",
        device_id: "dev-2",
        value: null,
        quality: "timeout",
        detail: "no reply",
        ts: "2026-01-01T00:00:01.000Z",
      },
    ]);
  });

  it("drops the detail of an earlier reading when a newer one has none", () => {
    const last = new LastValues();
    last.set(a, "dev-1", { value: null, quality: "device_exception", detail: "illegal address" }, 0);
    last.set(a, "dev-1", { value: 3, quality: "good" }, 1000);
    const [only] = last.list();
    expect(only).toEqual({
      alias: "pressure",
      device_id: "dev-1",
      value: 3,
      quality: "good",
      ts: "1970-01-01T00:00:01.000Z",
    });
    expect(only && "detail" in only).toBe(false);
  });

  it("takes a renamed alias and forgets variables no longer configured", () => {
    const last = new LastValues();
    last.set(a, "dev-1", { value: 1, quality: "good" }, 0);
    last.set(b, "dev-1", { value: 2, quality: "good" }, 0);
    last.set({ id: "id-a", alias: "pressure_bar" }, "dev-1", { value: 1, quality: "good" }, 0);
    last.retain(new Set(["id-a"]));
    expect(last.list().map((v) => v.alias)).toEqual(["pressure_bar"]);
  });

  it("carries the variable's unit when it has one (the local page shows it)", () => {
    const last = new LastValues();
    last.set({ ...a, unit: "psi" }, "dev-1", { value: 1, quality: "good" }, 0);
    last.set({ ...b, unit: null }, "dev-1", { value: 2, quality: "good" }, 0);
    expect(last.list().map((v) => v.unit)).toEqual(["psi", undefined]);
    last.set({ ...a, unit: "bar" }, "dev-1", { value: 1, quality: "good" }, 1000);
    expect(last.list()[0]?.unit).toBe("bar");
  });

  it("does not keep the reading object it was given", () => {
    const last = new LastValues();
    const reading = { value: 1, quality: "good" };
    last.set(a, "dev-1", reading, 0);
    reading.value = 99;
    expect(last.list()[0]?.value).toBe(1);
  });
});
