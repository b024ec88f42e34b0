import { decodePayload } from "sparkplug-payload/lib/sparkplugbpayload.js";
import { type StatePayload, statePayloadSchema } from "../../../shared/mqtt/hmi-topics.ts";
import type { ProjectNames } from "./project-names.ts";
import { NODE_METRICS } from "./sparkplug/node-metrics.ts";

/*
 * What an HMI credential may do (issue 11): read its project's Sparkplug group
 * (spBv1.0/{slug}/#), its unified namespace (caudal/uns/{slug}/#) and its primary host's STATE;
 * publish only an NCMD Rebirth for the project's node, and (as a Sparkplug host application
 * must) the STATE of the project's own primary host. `names` is undefined once the project is gone.
 */

/** A publish an HMI may make, parsed. */
export type HmiPublish = { kind: "rebirth" } | { kind: "state"; hostId: string; state: StatePayload };

/** Subscribe rights: a filter under the project's group or UNS level (never a wildcard there), or under STATE. */
export function hmiMaySubscribe(names: ProjectNames | undefined, filter: string): boolean {
  if (!names) return false;
  const levels = filter.split("/");
  if (levels[0] === "spBv1.0") {
    // Which host's STATE reaches the HMI is decided per message (hmiMayReceive).
    if (levels[1] === "STATE") return levels.length >= 3;
    return levels[1] === names.group && levels.length >= 3;
  }
  return levels[0] === "caudal" && levels[1] === "uns" && levels[2] === names.group && levels.length >= 4;
}

/** Delivery rights, per message: the project's current group and UNS level, and its primary host's STATE. */
export function hmiMayReceive(names: ProjectNames | undefined, topic: string): boolean {
  if (!names) return false;
  return (
    topic.startsWith(names.sparkplugPrefix) || topic.startsWith(names.unsPrefix) || topic === names.stateTopic
  );
}

/**
 * Publish rights: the parsed publish, or null when refused (MQTT 3.1.1 cannot refuse one
 * PUBLISH: the broker closes the connection, [MQTT-3.3.5-2]).
 */
export function hmiPublish(
  names: ProjectNames | undefined,
  topic: string,
  payload: Buffer,
  retain: boolean,
): HmiPublish | null {
  if (!names) return null;
  // Sparkplug B 3.0 §7.1: NCMD is never retained; STATE always is, but a host's will may not be.
  if (topic === names.ncmdTopic) return !retain && isRebirthRequest(payload) ? { kind: "rebirth" } : null;
  if (topic === names.stateTopic && names.primaryHostId !== null) {
    const state = parseState(payload);
    return state ? { kind: "state", hostId: names.primaryHostId, state } : null;
  }
  return null;
}

/** An NCMD whose every metric is Node Control/Rebirth (by name or alias) set to true. */
export function isRebirthRequest(payload: Buffer): boolean {
  let metrics: ReturnType<typeof decodePayload>["metrics"];
  try {
    metrics = decodePayload(payload).metrics;
  } catch {
    return false;
  }
  if (!metrics || metrics.length === 0) return false;
  const rebirth = NODE_METRICS.rebirth;
  return metrics.every(
    (m) =>
      (m.name === rebirth.name || (m.name == null && Number(m.alias) === rebirth.alias)) && m.value === true,
  );
}

function parseState(payload: Buffer): StatePayload | null {
  try {
    const parsed = statePayloadSchema.safeParse(JSON.parse(payload.toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
