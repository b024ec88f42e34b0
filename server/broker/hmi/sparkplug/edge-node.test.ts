import { describe, expect, it } from "vitest";
import type { BatchSeries } from "../../../../shared/telemetry/batch.ts";
import { decodeSparkplug, type SparkplugMessage } from "../../../testing/hmi/sparkplug-sub.ts";
import type { FieldModel } from "../field-model.ts";
import { HmiProject } from "../hmi-project.ts";
import type { ProjectNames } from "../project-names.ts";
import { sparkplugTypeOf, sparkplugValue } from "./datatypes.ts";
import { SparkplugEdgeNode } from "./edge-node.ts";

const names = (group = "field", node = "agent", host: string | null = null): ProjectNames => ({
  projectId: "p",
  group,
  edgeNodeId: node,
  primaryHostId: host,
  sparkplugPrefix: `spBv1.0/${group}/`,
  unsPrefix: `caudal/uns/${group}/`,
  ncmdTopic: `spBv1.0/${group}/NCMD/${node}`,
  stateTopic: host === null ? null : `spBv1.0/STATE/${host}`,
});

const model = (assets: number): FieldModel => ({
  assets: Array.from({ length: assets }, (_, i) => ({
    assetId: `a${i}`,
    slug: `well-${i}`,
    commLoss: false,
    variables: [{ name: "p", dataType: "float", scaleFactor: null, unit: "psi", latest: null }],
  })),
  nodeInfo: { agentVersion: null, configVersion: null, bufferPoints: null },
});

const reading = (assetId: string, ts: number, value: number): BatchSeries => ({
  projectId: "p",
  assetId,
  variable: "p",
  points: [[ts, value]],
});

/** A node over a project of `assets` wells, its published messages decoded. */
function harness(assets = 1, options: Partial<ConstructorParameters<typeof SparkplugEdgeNode>[2]> = {}) {
  const project = new HmiProject(names(), model(assets));
  const published: SparkplugMessage[] = [];
  const node = new SparkplugEdgeNode(
    project,
    (topic, payload) => published.push(decodeSparkplug(topic, payload)),
    { historyPerFlush: 5_000, historyPerMessage: 500, rebirthMinIntervalMs: 1_000, ...options },
  );
  return { project, node, published };
}

describe("Sparkplug edge node", () => {
  it("seq runs 0–255 across every message of the node and wraps to 0; a rebirth starts again at 0", () => {
    const { project, node, published } = harness(1);
    node.agentOnline(0);
    node.flush(0);
    for (let i = 1; i <= 300; i++) {
      project.observe(reading("a0", i, i));
      node.flush(i);
    }
    const seqs = published.map((m) => m.seq);
    expect(published[0]?.type).toBe("NBIRTH");
    expect(seqs.slice(0, 3)).toEqual([0, 1, 2]);
    expect(seqs.slice(255, 259)).toEqual([255, 0, 1, 2]);
    expect(seqs).toEqual(published.map((_, i) => i % 256));

    node.rebirth();
    node.flush(5_000);
    expect(published.slice(-2).map((m) => [m.type, m.seq])).toEqual([
      ["NBIRTH", 0],
      ["DBIRTH", 1],
    ]);
  });

  it("bdSeq: new on each online after offline, kept by a rebirth; NDEATH carries it", () => {
    const { node, published } = harness(1);
    node.agentOnline(0);
    node.flush(0);
    node.agentOnline(7); // online again without an offline between: the same session, bdSeq kept
    node.rebirth();
    node.flush(2_000);
    node.agentOffline(3_000);
    node.agentOnline(1);
    node.flush(4_000);
    const bd = (m: SparkplugMessage) => m.metrics.find((x) => x.name === "bdSeq")?.value;
    expect(published.filter((m) => m.type.startsWith("N")).map((m) => [m.type, bd(m), m.seq])).toEqual([
      ["NBIRTH", 0, 0],
      ["NBIRTH", 0, 0],
      ["NDEATH", 0, undefined],
      ["NBIRTH", 1, 0],
    ]);
  });

  it("a rebirth stops data at once; asked within a second of the last births, they wait for the second", () => {
    const { project, node, published } = harness(1);
    node.agentOnline(0);
    node.flush(0);
    node.rebirth();
    project.observe(reading("a0", 500, 7));
    node.flush(500);
    project.observe(reading("a0", 900, 8));
    node.flush(900);
    expect(published.map((m) => m.type)).toEqual(["NBIRTH", "DBIRTH"]);
    node.flush(1_000);
    expect(published.map((m) => m.type)).toEqual(["NBIRTH", "DBIRTH", "NBIRTH", "DBIRTH", "DDATA"]);
    // The births carry what came meanwhile; what it replaced follows as history.
    expect(published[3]?.metrics[0]).toMatchObject({ value: 8, timestamp: 900 });
    expect(published[4]?.metrics).toEqual([
      expect.objectContaining({ value: 7, timestamp: 500, isHistorical: true }),
    ]);
  });

  it("a backlog leaves at most historyPerFlush values a flush, in messages of historyPerMessage, in order", () => {
    const { project, node, published } = harness(2);
    node.agentOnline(0);
    project.observe(reading("a0", 1_000_000, -1));
    project.observe(reading("a1", 1_000_000, -1));
    node.flush(0);
    const births = published.length;
    for (let i = 0; i < 6_000; i++) project.observe(reading(`a${i < 3_000 ? 0 : 1}`, i, i));
    expect(project.history.size).toBe(6_000);
    node.flush(1);
    const first = published.slice(births);
    expect(first.every((m) => m.type === "DDATA" && m.metrics.length <= 500)).toBe(true);
    expect(first.flatMap((m) => m.metrics)).toHaveLength(5_000);
    node.flush(2);
    const values = published.slice(births).flatMap((m) => m.metrics);
    expect(values.map((m) => m.value)).toEqual(Array.from({ length: 6_000 }, (_, i) => i));
    expect(values.every((m) => m.isHistorical === true)).toBe(true);
    // Device by device: a message never mixes the two wells.
    expect(new Set(published.slice(births).map((m) => m.topic))).toEqual(
      new Set(["spBv1.0/field/DDATA/agent/well-0", "spBv1.0/field/DDATA/agent/well-1"]),
    );
  });

  it("a new group or edge node id: NDEATH under the old names, births under the new", () => {
    const { project, node, published } = harness(1);
    node.agentOnline(0);
    node.flush(0);
    const previous = project.names;
    project.apply(names("moved", "edge-2"), model(1));
    node.namesChanged(10, previous);
    node.flush(20);
    expect(published.slice(-3).map((m) => m.topic)).toEqual([
      "spBv1.0/field/NDEATH/agent",
      "spBv1.0/moved/NBIRTH/edge-2",
      "spBv1.0/moved/DBIRTH/edge-2/well-0",
    ]);
  });
});

describe("Sparkplug datatypes", () => {
  it("maps each data_type to its namesake (float: Float, int: Int16); a scaled integer is a Double", () => {
    expect(sparkplugTypeOf("float", null)).toBe("Float");
    expect(sparkplugTypeOf("int", null)).toBe("Int16");
    expect(sparkplugTypeOf("uint32", 1)).toBe("UInt32");
    expect(sparkplugTypeOf("int16", 0.1)).toBe("Double");
    expect(sparkplugTypeOf("float32", 10)).toBe("Float");
  });

  it("rounds integers into their range", () => {
    expect(sparkplugValue("Int16", -40_000)).toBe(-32_768);
    expect(sparkplugValue("UInt16", -1)).toBe(0);
    expect(sparkplugValue("UInt32", 4_294_967_295.4)).toBe(4_294_967_295);
    expect(sparkplugValue("Int32", -2.6)).toBe(-3);
    expect(sparkplugValue("Boolean", 0)).toBe(false);
    expect(sparkplugValue("String", 1.5)).toBe("1.5");
    expect(sparkplugValue("Double", 1.25)).toBe(1.25);
  });
});
