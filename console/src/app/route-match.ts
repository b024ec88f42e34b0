/** `/projects/:projectId` against `/projects/3f1c…`: the params, or null when it does not match. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const got = path.split("/").filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? "";
    const g = got[i] ?? "";
    if (w.startsWith(":")) params[w.slice(1)] = decodeURIComponent(g);
    else if (w !== g) return null;
  }
  return params;
}

/** `#/alarms?project=…` → path `/alarms` and its query. */
export function splitHash(hash: string): { path: string; query: URLSearchParams } {
  const raw = hash.replace(/^#/, "") || "/";
  const at = raw.indexOf("?");
  const path = at === -1 ? raw : raw.slice(0, at);
  return {
    path: path.startsWith("/") ? path : `/${path}`,
    query: new URLSearchParams(at === -1 ? "" : raw.slice(at + 1)),
  };
}
