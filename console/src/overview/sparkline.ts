/**
 * The drawing box of a sparkline (SVG user units); the SVG stretches it to its CSS size. It is
 * large enough that whole units are finer than a pixel, so a path is written with integers only:
 * turning fractions into text is most of what drawing hundreds of sparklines costs.
 */
export const SPARK_WIDTH = 1000;
export const SPARK_HEIGHT = 240;
/** Room above and below the line for its stroke. */
const PAD = 20;

/** The x of each point of a series of n points, as text: the same for every sparkline of a page. */
const columns = new Map<number, string[]>();
function columnsOf(n: number): string[] {
  let xs = columns.get(n);
  if (!xs) {
    xs = Array.from({ length: n }, (_, i) =>
      String(n > 1 ? Math.round((i * SPARK_WIDTH) / (n - 1)) : SPARK_WIDTH / 2),
    );
    columns.set(n, xs);
  }
  return xs;
}

/**
 * An SVG path through the points, oldest at the left, scaled between their lowest and highest
 * value (a flat series draws mid-height). A null point (a bucket without readings) breaks the
 * line; a point alone between breaks is a dot (a zero-length segment with round caps). Empty when
 * there is nothing to draw.
 */
export function sparkPath(points: readonly (number | null)[]): string {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const p of points) {
    if (p === null) continue;
    if (p < min) min = p;
    if (p > max) max = p;
  }
  if (min > max) return "";
  const xs = columnsOf(points.length);
  const span = max - min;
  const scale = span === 0 ? 0 : (SPARK_HEIGHT - 2 * PAD) / span;
  let d = "";
  let drawing = false;
  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    if (p === null || p === undefined) {
      drawing = false;
      continue;
    }
    const y = span === 0 ? SPARK_HEIGHT / 2 : Math.round(SPARK_HEIGHT - PAD - (p - min) * scale);
    if (drawing) d += `L${xs[i]} ${y}`;
    else {
      d += `M${xs[i]} ${y}`;
      const next = points[i + 1];
      // A lone point: draw it as a dot.
      if (next === null || next === undefined) d += "l0 0";
      drawing = true;
    }
  }
  return d;
}
