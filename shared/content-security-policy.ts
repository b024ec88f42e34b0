/**
 * The Content-Security-Policy of a page served with its own files (the operator console at the
 * server's `/`, and the agent's local page): scripts, styles, images and requests from its own
 * origin only, nothing inline (no `'unsafe-inline'`, no `'unsafe-eval'`), no other origin (an
 * offline site has no CDN), no framing. `connect-src 'self'` also covers a WebSocket to the same
 * host (CSP Level 3 §6.7.2.9).
 */
export const OWN_FILES_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");
