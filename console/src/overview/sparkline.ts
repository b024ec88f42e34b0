/** The drawing box of a sparkline (SVG user units); the SVG stretches it to its CSS size. */
export const SPARK_WIDTH = 100;
export const SPARK_HEIGHT = 24;
/** Room above and below the line for its stroke. */
const PAD = 2;

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
  const step = points.length > 1 ? SPARK_WIDTH / (points.length - 1) : 0;
  const span = max - min;
  const y = (v: number) =>
    span === 0 ? SPARK_HEIGHT / 2 : PAD + (SPARK_HEIGHT - 2 * PAD) * (1 - (v - min) / span);
  const parts: string[] = [];
  let drawing = false;
  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    if (p === null || p === undefined) {
      drawing = false;
      continue;
    }
    const x = round(points.length > 1 ? i * step : SPARK_WIDTH / 2);
    const next = points[i + 1];
    if (!drawing) {
      parts.push(`M${x} ${round(y(p))}`);
      // A lone point: draw it as a dot.
      if (next === null || next === undefined) parts.push("l0 0");
      drawing = true;
    } else parts.push(`L${x} ${round(y(p))}`);
  }
  return parts.join("");
}

const round = (n: number) => Math.round(n * 100) / 100;
