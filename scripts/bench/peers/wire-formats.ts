import { encodeTelemetryFrame } from "../../../shared/mqtt/telemetry-frame.ts";
import { variableName } from "./sensor-walk.ts";

/**
 * The same block of readings (`values`: second-major, `variables` per second, from `fromMs`) in
 * each side's wire format. Built as text by hand on every side alike, so that neither pays for a
 * generic encoder the other does not.
 */
export type Block = { fromMs: number; values: Float32Array };

const NAMES = Array.from({ length: 1000 }, (_, i) => variableName(i));
const name = (i: number) => NAMES[i] ?? variableName(i);

/** What caudalBatch writes before a variable's value: `{"variable":"<name>","value":`. */
const readingHeadOf = (n: string) => `{"variable":"${n}","value":`;
/** What influxLines writes before a variable's value: `<name>=`. */
const fieldHeadOf = (n: string) => `${n}=`;
const READING_HEADS = NAMES.map(readingHeadOf);
const FIELD_HEADS = NAMES.map(fieldHeadOf);
const readingHead = (i: number) => READING_HEADS[i] ?? readingHeadOf(variableName(i));
const fieldHead = (i: number) => FIELD_HEADS[i] ?? fieldHeadOf(variableName(i));

/*
 * Both builders append to one string, with each variable's fixed text made once: the load
 * generator shares the machine with the side it measures, and building the bodies with arrays and
 * join() cost it a core of its own on Caudal's side (the JSON is twice the bytes of line protocol).
 */

/** POST /api/telemetry/batch: one payload per second, `variables` readings each. */
export function caudalBatch(assetId: string, variables: number, block: Block): string {
  const seconds = block.values.length / variables;
  const head = `{"asset_id":"${assetId}","timestamp":"`;
  let body = `{"items":[`;
  for (let s = 0; s < seconds; s++) {
    if (s > 0) body += ",";
    body += `${head}${new Date(block.fromMs + s * 1000).toISOString()}","readings":[`;
    for (let v = 0; v < variables; v++) {
      if (v > 0) body += ",";
      body += `${readingHead(v)}${block.values[s * variables + v]}}`;
    }
    body += "]}";
  }
  return `${body}]}`;
}

/** InfluxDB line protocol (POST /write?precision=s): one line per second, one field per variable. */
export function influxLines(assetId: string, variables: number, block: Block): string {
  const seconds = block.values.length / variables;
  const head = `sensor,asset=${assetId} `;
  let body = "";
  for (let s = 0; s < seconds; s++) {
    body += head;
    for (let v = 0; v < variables; v++) {
      if (v > 0) body += ",";
      body += `${fieldHead(v)}${block.values[s * variables + v]}`;
    }
    body += ` ${(block.fromMs + s * 1000) / 1000}\n`;
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

/**
 * The same message as a binary frame (shared/mqtt/telemetry-frame.ts), as an agent sends it once
 * the server's acks say it takes frames.
 */
export function agentFrame(
  agentId: string,
  seq: number,
  assetId: string,
  variables: number,
  block: Block,
): Buffer {
  const seconds = block.values.length / variables;
  const series = Array.from({ length: variables }, (_, v) => ({
    asset_id: assetId,
    variable: name(v),
    points: Array.from({ length: seconds }, (_, s): [number, number] => [
      block.fromMs + s * 1000,
      block.values[s * variables + v] ?? 0,
    ]),
  }));
  return encodeTelemetryFrame({ agent_id: agentId, seq, lane: "live", series, alarms: [] });
}

/**
 * agentFrame for one publisher, at a tenth of its CPU (the load generator shares the machine with
 * the server it measures): the bytes that never change between its messages come from a template,
 * encoded once by encodeTelemetryFrame; each message writes only its seq, timestamps and values.
 */
export function agentFrames(
  agentId: string,
  assetId: string,
  variables: number,
): (seq: number, block: Block) => Buffer {
  const templates = new Map<number, { bytes: Buffer; pointsAt: number[] }>();
  const templateFor = (seconds: number) => {
    const empty: Block = { fromMs: 0, values: new Float32Array(seconds * variables) };
    const bytes = agentFrame(agentId, 1, assetId, variables, empty);
    // Where each series' points start: after its asset (16), name, unit byte and count (4).
    const pointsAt: number[] = [];
    let at = 32;
    for (let v = 0; v < variables; v++) {
      at += 18 + bytes.readUInt16LE(at + 16);
      at += Math.max(1, bytes[at] ?? 0) + 4;
      pointsAt.push(at);
      at += seconds * 16;
    }
    const template = { bytes, pointsAt };
    templates.set(seconds, template);
    return template;
  };
  return (seq, block) => {
    const seconds = block.values.length / variables;
    const { bytes, pointsAt } = templates.get(seconds) ?? templateFor(seconds);
    const out = Buffer.from(bytes);
    out.writeDoubleLE(seq, 20);
    pointsAt.forEach((start, v) => {
      for (let s = 0; s < seconds; s++) {
        out.writeDoubleLE(block.fromMs + s * 1000, start + s * 16);
        out.writeDoubleLE(block.values[s * variables + v] ?? 0, start + s * 16 + 8);
      }
    });
    return out;
  };
}
