/**
 * Communication loss: an asset that has reported and then stays silent for `limitSeconds` is in
 * comm_loss. `lastSeen` is when its data last arrived (epoch ms); `now` is the caller's clock.
 * Returns the whole seconds of silence when the limit is reached, else null.
 */
export function commLossSilence(lastSeen: number, now: number, limitSeconds: number): number | null {
  const silentMs = now - lastSeen;
  if (!(silentMs >= limitSeconds * 1000)) return null;
  return Math.floor(silentMs / 1000);
}

/** The `variable` of a comm_loss alarm: it concerns the asset's link, not one of its tags. */
export const COMM_LOSS_VARIABLE = "comm";

/** Loss of data is a warning: readings may still be buffered on site (store-and-forward). */
export const COMM_LOSS_SEVERITY = "warning" as const;
