/** What the console can say about a live value: the agent's device state and the value's age. */
export type Quality = "good" | "stale" | "comm_error" | "disabled" | "no_data";

export type QualityInput = {
  enabled: boolean;
  /** The device's state in the agent's latest health report, when it has one. */
  deviceState: "ok" | "failing" | "disabled" | "unsupported" | null;
  /** How often the variable is polled; null for values sent through the API. */
  pollMs: number | null;
  /** Age of the latest value, or null when there is none. */
  ageMs: number | null;
};

/** Values sent by hand have no poll interval: stale after this long. */
const UNPOLLED_STALE_MS = 15 * 60_000;

/**
 * A value is stale once three poll intervals (at least a minute) pass without a new one; a device
 * the agent reports failing makes its values a communication error whatever their age.
 */
export function qualityOf(i: QualityInput): Quality {
  if (!i.enabled || i.deviceState === "disabled") return "disabled";
  if (i.deviceState === "failing" || i.deviceState === "unsupported") return "comm_error";
  if (i.ageMs === null) return "no_data";
  const staleAfter = i.pollMs === null ? UNPOLLED_STALE_MS : Math.max(60_000, 3 * i.pollMs);
  return i.ageMs > staleAfter ? "stale" : "good";
}
