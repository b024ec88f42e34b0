import type { RegisterKind } from "../../../shared/field/data-types.ts";
import type { AgentVariable } from "../../../shared/mqtt/agent-config.ts";
import type { TagResult } from "../driver.ts";
import { type BlockTag, planBlocks, span } from "./blocks.ts";

/** A block read with, for each variable in it, where its value starts (registers or bits). */
export type PlannedBlock = {
  kind: RegisterKind;
  start: number;
  count: number;
  tags: { variable: AgentVariable; offset: number }[];
};

/**
 * The requests that read one list of variables, worked out once and reused on every poll of the
 * same list. `refused` holds the results of variables no request can read.
 */
export type ReadPlan = {
  /** The list the plan was made for (a caller passing the same array again gets it at once). */
  source: readonly AgentVariable[];
  /** A copy of that list, to recognise an equal list passed as another array. */
  variables: readonly AgentVariable[];
  refused: TagResult[];
  blocks: PlannedBlock[];
};

export function planRead(variables: readonly AgentVariable[]): ReadPlan {
  const refused: TagResult[] = [];
  const tags: BlockTag[] = [];
  const byId = new Map<string, AgentVariable>();
  for (const v of variables) {
    if (v.register_address === null || v.data_type === "string") {
      refused.push({
        variableId: v.id,
        value: null,
        quality: "config_error",
        detail: "no numeric register address",
      });
      continue;
    }
    const bitKind = v.register_kind === "coil" || v.register_kind === "discrete";
    if (bitKind && v.data_type !== "bool") {
      refused.push({
        variableId: v.id,
        value: null,
        quality: "config_error",
        detail: `${v.register_kind} registers hold bool only`,
      });
      continue;
    }
    const tag = { id: v.id, kind: v.register_kind, address: v.register_address, dataType: v.data_type };
    if (tag.address + span(tag) > 65_536) {
      refused.push({
        variableId: v.id,
        value: null,
        quality: "config_error",
        detail: "runs past address 65535",
      });
      continue;
    }
    byId.set(v.id, v);
    tags.push(tag);
  }
  const blocks = planBlocks(tags).map((b) => ({
    kind: b.kind,
    start: b.start,
    count: b.count,
    tags: b.tags.flatMap((t) => {
      const variable = byId.get(t.id);
      return variable ? [{ variable, offset: t.address - b.start }] : [];
    }),
  }));
  return { source: variables, variables: [...variables], refused, blocks };
}

/** One block per variable of `block`, each just as wide as its value. */
export function splitBlock(block: PlannedBlock): PlannedBlock[] {
  return block.tags.map(({ variable, offset }) => {
    const start = block.start + offset;
    const tag = { id: variable.id, kind: block.kind, address: start, dataType: variable.data_type };
    return { kind: block.kind, start, count: span(tag), tags: [{ variable, offset: 0 }] };
  });
}
