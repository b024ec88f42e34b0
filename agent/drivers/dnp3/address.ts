import type { PointType } from "./objects.ts";

/**
 * A variable's `address` for DNP3: `g<group>:<index>`, where the group names the point type by
 * its static or event object group (1/2 binary input, 20/22 counter, 30/32 analog input) and
 * the index is the point index, 0–65535 (qualifiers 0x01 and 0x28 carry 16-bit indices).
 */
export type PointAddress = { type: PointType; index: number };

const GROUPS: Record<number, PointType> = {
  1: "binary",
  2: "binary",
  20: "counter",
  22: "counter",
  30: "analog",
  32: "analog",
};
const GRAMMAR = /^g(\d{1,3}):(\d{1,5})$/i;
const MAX_INDEX = 65535;

export function parsePointAddress(
  address: string | null,
): { ok: true; point: PointAddress } | { ok: false; error: string } {
  if (!address) return { ok: false, error: "DNP3 point address is missing (expected g<group>:<index>)" };
  const match = GRAMMAR.exec(address);
  if (!match) return { ok: false, error: `"${address}" is not a DNP3 point address g<group>:<index>` };
  const group = Number(match[1]);
  const index = Number(match[2]);
  const type = GROUPS[group];
  if (type === undefined) return { ok: false, error: `group ${group} is not read (use 1/2, 20/22 or 30/32)` };
  if (index > MAX_INDEX) return { ok: false, error: `index ${index} is out of range 0–${MAX_INDEX}` };
  return { ok: true, point: { type, index } };
}

/** The point-table key of a point. */
export const pointKey = (type: PointType, index: number): string => `${type}:${index}`;
