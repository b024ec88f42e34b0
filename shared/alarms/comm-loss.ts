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
