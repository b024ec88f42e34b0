import type { UnsPayload } from "../../../shared/mqtt/hmi-topics.ts";
import type { HmiProject } from "./hmi-project.ts";
import { sparkplugValue } from "./sparkplug/datatypes.ts";

export type RetainedPublish = (topic: string, payload: Buffer) => void;

/** A zero-byte retained message removes the topic's retained message ([MQTT-3.3.1-10]). */
const CLEAR = Buffer.alloc(0);

/**
 * The unified namespace of one project: caudal/uns/{project}/{asset}/{variable}, retained JSON
 * `{value, unit, timestamp, quality}`, the newest value of each variable (coalesced: at most one
 * message per variable per flush), and nothing left behind for a variable that is gone.
 */
export function flushUns(project: HmiProject, publish: RetainedPublish): void {
  for (const topic of project.unsCleared) publish(topic, CLEAR);
  project.unsCleared.length = 0;
  for (const m of project.unsDirty) {
    if (!m.unsDirty || project.byAlias.get(m.alias) !== m) continue;
    m.unsDirty = false;
    if (m.ts === Number.NEGATIVE_INFINITY) continue;
    const payload: UnsPayload = {
      value: sparkplugValue(m.type, m.value),
      unit: m.unit,
      timestamp: new Date(m.ts).toISOString(),
      quality: m.device.commLoss ? "bad" : "good",
    };
    publish(project.unsTopicOf(m), Buffer.from(JSON.stringify(payload)));
    m.unsPublished = true;
  }
  project.unsDirty.length = 0;
}
