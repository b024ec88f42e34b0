import { decodePayload } from "sparkplug-payload/lib/sparkplugbpayload.js";
import { REBIRTH_METRIC, type StatePayload, statePayloadSchema } from "../../../shared/mqtt/hmi-topics.ts";
import type { ProjectNames } from "./project-names.ts";

/*
 * What an HMI credential may do (issue 11): read its project's Sparkplug group
 * (spBv1.0/{slug}/#), its unified namespace (caudal/uns/{slug}/#) and its primary host's STATE;
 * publish only an NCMD Rebirth for the project's node, and the STATE a Sparkplug host application
 * must publish [tck-id-host-topic-phid-birth-required]: that of the project's primary host is
 * honoured, any other host's is taken and dropped. `names` is undefined once the project is gone.
 */

/**
 * A publish an HMI may make, parsed. `ignored`: the STATE of a host that is not the project's
 * primary host, acknowledged but neither retained nor delivered (refusing it would close the
 * connection, and the host application would reconnect and publish it again, forever).
 */
export type HmiPublish =
  | { kind: "rebirth" }
  | { kind: "state"; hostId: string; state: StatePayload }
  | { kind: "ignored" };

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
  // Commands are never retained; STATE must be [tck-id-host-topic-phid-death-retain], but need not.
  if (topic === names.ncmdTopic) return !retain && isRebirthRequest(payload) ? { kind: "rebirth" } : null;
  const levels = topic.split("/");
  if (levels.length !== 3 || levels[0] !== "spBv1.0" || levels[1] !== "STATE" || !levels[2]) return null;
  const state = parseState(payload);
  if (!state) return null;
  if (topic !== names.stateTopic || names.primaryHostId === null) return { kind: "ignored" };
  return { kind: "state", hostId: names.primaryHostId, state };
}

/**
 * An NCMD whose every metric is Node Control/Rebirth set to true: by name, as a rebirth request
 * must name it [tck-id-operational-behavior-data-commands-ncmd-rebirth-name].
 */
export function isRebirthRequest(payload: Buffer): boolean {
  let metrics: ReturnType<typeof decodePayload>["metrics"];
  try {
    metrics = decodePayload(payload).metrics;
  } catch {
    return false;
  }
  if (!metrics || metrics.length === 0) return false;
  return metrics.every((m) => m.name === REBIRTH_METRIC && m.value === true);
}

function parseState(payload: Buffer): StatePayload | null {
  try {
    const parsed = statePayloadSchema.safeParse(JSON.parse(payload.toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
