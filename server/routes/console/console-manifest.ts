/** dist/console/manifest.json, written by scripts/build/console-bundle.ts and read by the server. */
export type ConsoleManifest = {
  version: 1;
  /** index.html's validator: it is revalidated on every load (no-cache). */
  index: { etag: string };
  /** Content-hashed file names under assets/, each also stored as .gz and .br. */
  assets: Record<string, { type: string; size: number }>;
};

export function isConsoleManifest(value: unknown): value is ConsoleManifest {
  if (typeof value !== "object" || value === null) return false;
  const m = value as Partial<ConsoleManifest>;
  return (
    m.version === 1 &&
    typeof m.index?.etag === "string" &&
    typeof m.assets === "object" &&
    m.assets !== null &&
    Object.values(m.assets).every((a) => typeof a?.type === "string")
  );
}
