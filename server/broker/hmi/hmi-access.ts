import { decodePayload } from "sparkplug-payload/lib/sparkplugbpayload.js";
import { REBIRTH_METRIC, type StatePayload, statePayloadSchema } from "../../../shared/mqtt/hmi-topics.ts";
import type { ProjectNames } from "./project-names.ts";

/*
 * What an HMI credential may do (issues 11, 28): read its project's Sparkplug group
 * (spBv1.0/{slug}/#), its unified namespace (caudal/uns/{slug}/#) and its primary host's STATE,
 * through any filter that can reach them (`spBv1.0/#` and `#` included, as a host application
 * subscribes by default), each message checked as it is delivered; publish only an NCMD Rebirth
 * for the project's node, and the STATE a Sparkplug host application must publish
 * [tck-id-host-topic-phid-birth-required]. A STATE is honoured only for the host id the project gave
 * the login, when it is the project's primary host, and stamped no later than MAX_STATE_AHEAD_MS past
 * the server's clock; any other is taken and dropped. `names` is undefined once the project is gone.
 */

/**
 * How far ahead of the server's clock a STATE timestamp may be. The edge node ignores a STATE older
 * than the last one [tck-id-operational-behavior-edge-node-termination-host-offline-timestamp], so one
 * stamped in the far future would silence the group until then; a host's clock may run a little ahead.
 */
export const MAX_STATE_AHEAD_MS = 5 * 60_000;

/**
 * A publish an HMI may make, parsed. `ignored`: the STATE of a host that is not the project's
 * primary host, acknowledged but neither retained nor delivered (refusing it would close the
 * connection, and the host application would reconnect and publish it again, forever).
 */
export type HmiPublish =
  | { kind: "rebirth" }
  | { kind: "state"; hostId: string; state: StatePayload }
  | { kind: "ignored"; reason: "other-host" | "ahead-of-clock" };

/** The login publishing: the host id the project gave it (null: none). */
export type HmiPublisher = { primaryHostId: string | null };

/**
 * Subscribe rights: any filter that can match a topic of the project's group or UNS level, or a
 * STATE (which host's STATE reaches the HMI is decided per message, hmiMayReceive). `#`,
 * `spBv1.0/#` and `+/…` are granted; a filter naming another group, or outside these, is not.
 */
export function hmiMaySubscribe(names: ProjectNames | undefined, filter: string): boolean {
  if (!names || filter.startsWith("$")) return false;
  const levels = filter.split("/");
  return (
    mayOverlap(levels, ["spBv1.0", names.group], "some") ||
    mayOverlap(levels, ["caudal", "uns", names.group], "some") ||
    mayOverlap(levels, ["spBv1.0", "STATE"], "one")
  );
}

/**
 * Whether a filter can match a topic made of `prefix` and then `more` levels: "one" exactly one,
 * "some" at least one (MQTT 3.1.1 §4.7: `+` is one level, `#` any number, none included).
 */
function mayOverlap(filter: readonly string[], prefix: readonly string[], more: "one" | "some"): boolean {
  for (const [i, level] of prefix.entries()) {
    const f = filter[i];
    if (f === "#") return true;
    if (f === undefined || (f !== "+" && f !== level)) return false;
  }
  const rest = filter.slice(prefix.length);
  if (rest.length === 0) return false;
  if (more === "some" || rest[0] === "#") return true;
  return rest.length === 1 || (rest.length === 2 && rest[1] === "#");
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
  login: HmiPublisher,
  topic: string,
  payload: Buffer,
  retain: boolean,
  nowMs: number,
): HmiPublish | null {
  if (!names) return null;
  // Commands are never retained; STATE must be [tck-id-host-topic-phid-death-retain], but need not.
  if (topic === names.ncmdTopic) return !retain && isRebirthRequest(payload) ? { kind: "rebirth" } : null;
  const levels = topic.split("/");
  if (levels.length !== 3 || levels[0] !== "spBv1.0" || levels[1] !== "STATE" || !levels[2]) return null;
  const state = parseState(payload);
  if (!state) return null;
  if (state.timestamp > nowMs + MAX_STATE_AHEAD_MS) return { kind: "ignored", reason: "ahead-of-clock" };
  const hostId = levels[2];
  if (hostId !== login.primaryHostId || hostId !== names.primaryHostId)
    return { kind: "ignored", reason: "other-host" };
  return { kind: "state", hostId, state };
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
