import { type DataType, type RegisterKind, registerWidth } from "../../../shared/field/data-types.ts";

/** Modbus limits per request: 125 registers (FC 3/4), 2000 bits (FC 1/2). Modbus APP v1.1b3 §6.1–6.4. */
export const MAX_REGISTERS = 125;
export const MAX_BITS = 2000;

export type BlockTag = { id: string; kind: RegisterKind; address: number; dataType: DataType };

export type Block = {
  kind: RegisterKind;
  start: number;
  count: number;
  tags: BlockTag[];
};

/** Registers (or bits) a tag spans. */
export function span(tag: BlockTag): number {
  return tag.kind === "coil" || tag.kind === "discrete" ? 1 : registerWidth(tag.dataType);
}

/**
 * Coalesces tags of one device into block reads per kind: adjacent or overlapping addresses
 * share one request of at most 125 registers (2000 bits). `maxGap` lets a small hole be read
 * through rather than paying another round trip.
 */
export function planBlocks(tags: readonly BlockTag[], maxGap = 0): Block[] {
  const blocks: Block[] = [];
  const byKind = new Map<RegisterKind, BlockTag[]>();
  for (const t of tags) {
    const list = byKind.get(t.kind) ?? [];
    list.push(t);
    byKind.set(t.kind, list);
  }
  for (const [kind, list] of byKind) {
    const limit = kind === "coil" || kind === "discrete" ? MAX_BITS : MAX_REGISTERS;
    list.sort((a, b) => a.address - b.address);
    let current: Block | undefined;
    for (const tag of list) {
      const end = tag.address + span(tag);
      if (current && tag.address <= current.start + current.count + maxGap && end - current.start <= limit) {
        current.count = Math.max(current.count, end - current.start);
        current.tags.push(tag);
        continue;
      }
      current = { kind, start: tag.address, count: span(tag), tags: [tag] };
      blocks.push(current);
    }
  }
  return blocks;
}
