/** The q-value (RFC 9110 §12.4.2) the Accept header gives `type` exactly; 0 when it is not named. */
function qualityOf(accept: string, type: string): { q: number; position: number } {
  const ranges = accept.split(",");
  for (let i = 0; i < ranges.length; i++) {
    const [media = "", ...params] = (ranges[i] ?? "").split(";").map((p) => p.trim().toLowerCase());
    if (media !== type) continue;
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    return { q: Number.isFinite(q) ? q : 0, position: i };
  }
  return { q: 0, position: Number.POSITIVE_INFINITY };
}

/**
 * CSV when `format=csv`; JSON when `format=json`; without `format`, CSV when the Accept header
 * names text/csv ahead of application/json (a higher q, or the same q and listed first). Wildcards
 * keep JSON, the default.
 */
export function wantsCsv(format: "json" | "csv" | undefined, accept: string | undefined): boolean {
  if (format !== undefined) return format === "csv";
  if (!accept) return false;
  const csv = qualityOf(accept, "text/csv");
  const json = qualityOf(accept, "application/json");
  if (csv.q <= 0) return false;
  return csv.q > json.q || (csv.q === json.q && csv.position < json.position);
}
