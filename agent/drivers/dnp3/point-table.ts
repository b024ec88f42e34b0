import type { AgentVariable } from "../../../shared/mqtt/agent-config.ts";
import type { TagResult } from "../driver.ts";
import { type PointAddress, pointKey } from "./address.ts";
import type { Measurement, PointType } from "./objects.ts";

/** Quality flags shared by the measurement types (IEEE 1815-2012 Annex A, flag octet). */
const ONLINE = 0x01;
const RESTART = 0x02;
const COMM_LOST = 0x04;
const REMOTE_FORCED = 0x08;
const LOCAL_FORCED = 0x10;
/** Analog inputs only: bit 5 OVER_RANGE, bit 6 REFERENCE_ERR. */
const OVER_RANGE = 0x20;
const REFERENCE_ERR = 0x40;

type Point = { value: number; flags: number };

/** The latest value and flags of every point the outstation reported, by type and index. */
export class PointTable {
  readonly #points = new Map<string, Point>();

  get size(): number {
    return this.#points.size;
  }

  /** Applies measurements in the order received, so the latest event of a point wins. */
  apply(measurements: readonly Measurement[]): void {
    for (const m of measurements)
      this.#points.set(pointKey(m.type, m.index), { value: m.value, flags: m.flags });
  }

  clear(): void {
    this.#points.clear();
  }

  resultFor(variable: AgentVariable, address: PointAddress): TagResult {
    const point = this.#points.get(pointKey(address.type, address.index));
    if (!point)
      return {
        variableId: variable.id,
        value: null,
        quality: "config_error",
        detail: `the outstation reports no ${address.type} input at index ${address.index}`,
      };
    const problem = flagProblem(address.type, point.flags);
    if (problem) return { variableId: variable.id, value: null, ...problem };
    return { variableId: variable.id, value: scaled(point.value, variable.scale_factor), quality: "good" };
  }
}

function scaled(value: number, scale: number | null): number {
  return scale === null ? value : value * scale;
}

/** Not good when the point is offline, its source is unreachable, or (analogs) out of range. */
function flagProblem(
  type: PointType,
  flags: number,
): { quality: "comm_error" | "device_exception"; detail: string } | undefined {
  if (flags & COMM_LOST)
    return { quality: "comm_error", detail: `outstation flags COMM_LOST (${describe(flags)})` };
  if (!(flags & ONLINE))
    return { quality: "device_exception", detail: `point is not ONLINE (${describe(flags)})` };
  if (type === "analog" && flags & (OVER_RANGE | REFERENCE_ERR))
    return { quality: "device_exception", detail: `analog out of range (${describe(flags)})` };
  return undefined;
}

function describe(flags: number): string {
  const names: [number, string][] = [
    [ONLINE, "online"],
    [RESTART, "restart"],
    [COMM_LOST, "comm lost"],
    [REMOTE_FORCED, "remote forced"],
    [LOCAL_FORCED, "local forced"],
  ];
  const set = names.filter(([bit]) => flags & bit).map(([, n]) => n);
  return `flags 0x${flags.toString(16).padStart(2, "0")}${set.length ? `: ${set.join(", ")}` : ""}`;
}
