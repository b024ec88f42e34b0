import type { TelemetryInstant } from "../../shared/telemetry/batch.ts";
import type { AlarmNotice } from "../services/events.ts";

/*
 * The live stream's messages: one JSON object per WebSocket text message.
 *   {"type":"telemetry","project_id","asset_id","timestamp","readings":[{variable,value,unit?}]}
 *   {"type":"alarm","event":"raised"|"cleared"|"acknowledged","alarm":{AlarmEvent}}
 *   {"type":"dropped","count":N}   this client fell behind and N older events were discarded
 * Each event is encoded ONCE into a Buffer that every client's socket shares (no per-client
 * JSON.stringify or UTF-8 encoding on the fan-out path).
 */

/** An encoded message and the project it belongs to (the filter key). */
export type StreamFrame = { projectId: string; data: Buffer };

/** One instant of a committed batch (instantsOfBatch): the stream's messages are per asset and time. */
export function telemetryFrame(instant: TelemetryInstant): StreamFrame {
  const message = {
    type: "telemetry",
    project_id: instant.projectId,
    asset_id: instant.assetId,
    timestamp: new Date(instant.ts).toISOString(),
    readings: instant.readings,
  };
  return { projectId: instant.projectId, data: Buffer.from(JSON.stringify(message)) };
}

export function alarmFrame(notice: AlarmNotice): StreamFrame {
  const message = { type: "alarm", event: notice.event, alarm: notice.alarm };
  return { projectId: notice.alarm.project_id, data: Buffer.from(JSON.stringify(message)) };
}

export function droppedFrame(count: number): Buffer {
  return Buffer.from(JSON.stringify({ type: "dropped", count }));
}
