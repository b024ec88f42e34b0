import { describe, expect, it } from "vitest";
import { planRead, splitBlock } from "./read-plan.ts";
import { testVariable } from "./test-vectors.ts";

describe("read planning", () => {
  it("refuses what no request can read, with the reason, and plans the rest", () => {
    const ok = testVariable({ register_address: 10, data_type: "float32" });
    const next = testVariable({ register_address: 12 });
    const noAddress = testVariable({ register_address: null });
    const text = testVariable({ register_address: 20, data_type: "string" });
    const coilFloat = testVariable({ register_address: 1, register_kind: "coil", data_type: "float32" });
    const pastEnd = testVariable({ register_address: 65_535, data_type: "float32" });
    const plan = planRead([ok, next, noAddress, text, coilFloat, pastEnd]);
    expect(plan.refused).toEqual([
      {
        variableId: noAddress.id,
        value: null,
        quality: "config_error",
        detail: "no numeric register address",
      },
      { variableId: text.id, value: null, quality: "config_error", detail: "no numeric register address" },
      {
        variableId: coilFloat.id,
        value: null,
        quality: "config_error",
        detail: "coil registers hold bool only",
      },
      { variableId: pastEnd.id, value: null, quality: "config_error", detail: "runs past address 65535" },
    ]);
    expect(plan.blocks).toHaveLength(1);
    expect(plan.blocks[0]).toMatchObject({ kind: "holding", start: 10, count: 3 });
    expect(plan.blocks[0]?.tags.map((t) => [t.variable.id, t.offset])).toEqual([
      [ok.id, 0],
      [next.id, 2],
    ]);
  });

  it("splits a block into one request per variable, each as wide as its value", () => {
    const a = testVariable({ register_address: 100, data_type: "float64" });
    const b = testVariable({ register_address: 104 });
    const c = testVariable({ register_address: 105, data_type: "uint32" });
    const [block] = planRead([a, b, c]).blocks;
    if (!block) throw new Error("no block");
    expect(
      splitBlock(block).map((x) => [x.start, x.count, x.tags[0]?.variable.id, x.tags[0]?.offset]),
    ).toEqual([
      [100, 4, a.id, 0],
      [104, 1, b.id, 0],
      [105, 2, c.id, 0],
    ]);
  });
});
