/** The text of a communication-loss alarm. */
export function commLossMessage(assetName: string, silentSeconds: number, limitSeconds: number): string {
  return `${assetName}: no data for ${silentSeconds} s (limit ${limitSeconds} s)`;
}

/**
 * The limit a communication-loss message names, in seconds; null for any other text. A client
 * that words the alarm in its own language reads it here (the alarm's value is the silence).
 */
export function commLossLimit(message: string): number | null {
  const m = / \(limit (\d+) s\)$/.exec(message);
  return m ? Number(m[1]) : null;
}
