import type { AlarmNotice, TelemetryEvent } from "../services/events.ts";

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

export function telemetryFrame(event: TelemetryEvent): StreamFrame {
  const message = {
    type: "telemetry",
    project_id: event.projectId,
    asset_id: event.assetId,
    timestamp: event.timestamp,
    readings: event.readings,
  };
  return { projectId: event.projectId, data: Buffer.from(JSON.stringify(message)) };
}

export function alarmFrame(notice: AlarmNotice): StreamFrame {
  const message = { type: "alarm", event: notice.event, alarm: notice.alarm };
  return { projectId: notice.alarm.project_id, data: Buffer.from(JSON.stringify(message)) };
}

export function droppedFrame(count: number): Buffer {
  return Buffer.from(JSON.stringify({ type: "dropped", count }));
}
