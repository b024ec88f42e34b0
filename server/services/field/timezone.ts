/**
 * The canonical IANA name of `zone` ("america/bogota" → "America/Bogota"), or null when the
 * runtime's time zone database does not know it. The production day of the ANH 0651 daily
 * report is cut in this zone, so an unknown zone is refused rather than guessed.
 */
export function canonicalTimeZone(zone: string): string | null {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

export const DEFAULT_TIMEZONE = "America/Bogota";
