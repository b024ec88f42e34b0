import { variableName } from "./sensor-walk.ts";

/**
 * The same block of readings (`values`: second-major, `variables` per second, from `fromMs`) in
 * each side's wire format. Built as text by hand on every side alike, so that neither pays for a
 * generic encoder the other does not.
 */
export type Block = { fromMs: number; values: Float32Array };

const NAMES = Array.from({ length: 1000 }, (_, i) => variableName(i));
const name = (i: number) => NAMES[i] ?? variableName(i);

/** POST /api/telemetry/batch: one payload per second, `variables` readings each. */
export function caudalBatch(assetId: string, variables: number, block: Block): string {
  const seconds = block.values.length / variables;
  const items: string[] = [];
  for (let s = 0; s < seconds; s++) {
    const readings: string[] = [];
    for (let v = 0; v < variables; v++) {
      readings.push(`{"variable":"${name(v)}","value":${block.values[s * variables + v]}}`);
    }
    const timestamp = new Date(block.fromMs + s * 1000).toISOString();
    items.push(`{"asset_id":"${assetId}","timestamp":"${timestamp}","readings":[${readings.join(",")}]}`);
  }
  return `{"items":[${items.join(",")}]}`;
}

/** InfluxDB line protocol (POST /write?precision=s): one line per second, one field per variable. */
export function influxLines(assetId: string, variables: number, block: Block): string {
  const seconds = block.values.length / variables;
  let body = "";
  for (let s = 0; s < seconds; s++) {
    const fields: string[] = [];
    for (let v = 0; v < variables; v++) fields.push(`${name(v)}=${block.values[s * variables + v]}`);
    body += `sensor,asset=${assetId} ${fields.join(",")} ${(block.fromMs + s * 1000) / 1000}\n`;
  }
  return body;
}

/**
 * An agent's telemetry message (shared/mqtt/topics.ts payloads.telemetry), as its live lane sends
 * one poll: every variable of the asset with one point each.
 */
export function agentMessage(
  agentId: string,
  seq: number,
  assetId: string,
  variables: number,
  block: Block,
): string {
  const seconds = block.values.length / variables;
  const series: string[] = [];
  for (let v = 0; v < variables; v++) {
    const points: string[] = [];
    for (let s = 0; s < seconds; s++)
      points.push(`[${block.fromMs + s * 1000},${block.values[s * variables + v]}]`);
    series.push(`{"asset_id":"${assetId}","variable":"${name(v)}","points":[${points.join(",")}]}`);
  }
  return `{"series":[${series.join(",")}],"alarms":[],"agent_id":"${agentId}","seq":${seq},"lane":"live"}`;
}
