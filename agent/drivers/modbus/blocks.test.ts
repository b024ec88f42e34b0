import { describe, expect, it } from "vitest";
import { type BlockTag, planBlocks } from "./blocks.ts";

const tag = (
  id: string,
  address: number,
  dataType: BlockTag["dataType"] = "uint16",
  kind: BlockTag["kind"] = "holding",
) => ({
  id,
  address,
  dataType,
  kind,
});

describe("block planning", () => {
  it("coalesces adjacent registers of one kind into one read", () => {
    const blocks = planBlocks([tag("a", 0), tag("b", 1, "float32"), tag("c", 3)]);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ kind: "holding", start: 0, count: 4 });
  });

  it("splits at 125 registers", () => {
    const tags = Array.from({ length: 300 }, (_, i) => tag(`t${i}`, i));
    const blocks = planBlocks(tags);
    expect(blocks.map((b) => b.count)).toEqual([125, 125, 50]);
    expect(blocks.every((b) => b.count <= 125)).toBe(true);
  });

  it("never lets a multi-register value straddle two blocks", () => {
    const tags = [
      tag("x", 0, "uint16"),
      ...Array.from({ length: 62 }, (_, i) => tag(`f${i}`, 1 + i * 2, "float32")),
    ];
    // 1 + 62*2 = 125 registers: fits exactly; one more float must start a new block.
    tags.push(tag("last", 125, "float32"));
    const blocks = planBlocks(tags);
    expect(blocks[0]?.count).toBe(125);
    expect(blocks[1]).toMatchObject({ start: 125, count: 2 });
  });

  it("keeps kinds apart and honours gaps", () => {
    const blocks = planBlocks([tag("h", 0), tag("i", 0, "uint16", "input"), tag("h2", 10)]);
    expect(blocks).toHaveLength(3);
    expect(planBlocks([tag("h", 0), tag("h2", 10)], 9)).toHaveLength(1);
  });

  it("plans coils by bits", () => {
    const coils = Array.from({ length: 2500 }, (_, i) => tag(`c${i}`, i, "bool", "coil"));
    expect(planBlocks(coils).map((b) => b.count)).toEqual([2000, 500]);
  });
});
