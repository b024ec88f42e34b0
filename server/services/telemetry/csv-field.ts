/** RFC 4180 §2: records end with CRLF. */
export const CRLF = "\r\n";

const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field (RFC 4180 §2.6–2.7): enclosed in double quotes when it holds a comma, a quote or a
 * line break, with each quote doubled; otherwise as is.
 */
export function csvField(value: string): string {
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}
