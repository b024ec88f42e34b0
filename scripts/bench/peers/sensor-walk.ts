/**
 * Realistic sensor readings for `npm run bench -- peers`, the same on both sides: each variable is
 * a slow random walk around its own level (mean-reverting, so it stays in range over days) plus
 * measurement noise, read as a float32 (as an agent decodes a Modbus float32 register: the double
 * of a float32, with the low 29 mantissa bits zero). Seeded, so the verifier regenerates exactly
 * what the load generator sent.
 */
export class SensorWalk {
  readonly variables: number;
  readonly #level: Float64Array;
  readonly #x: Float64Array;
  #state: number;
  #spare: number | null = null;

  constructor(seed: number, variables: number) {
    this.variables = variables;
    this.#state = seed >>> 0 || 1;
    this.#level = new Float64Array(variables);
    this.#x = new Float64Array(variables);
    for (let v = 0; v < variables; v++) {
      // Levels from 5 to 3,000 (psi, °F, bbl/d): a field's mix of small and large magnitudes.
      const level = 5 * 600 ** this.#uniform();
      this.#level[v] = level;
      this.#x[v] = level;
    }
  }

  /** The next second of every variable, written to `out` from `offset`. */
  next(out: Float32Array, offset: number): void {
    for (let v = 0; v < this.variables; v++) {
      const level = this.#level[v] ?? 0;
      const x = this.#x[v] ?? 0;
      // Ornstein-Uhlenbeck step (time constant ~3 h) and noise of 0.05% of the level.
      const walked = x + (level - x) * 1e-4 + level * 2e-4 * this.#gaussian();
      this.#x[v] = walked;
      out[offset + v] = walked + level * 5e-4 * this.#gaussian();
    }
  }

  /** `seconds` seconds of every variable, time-major (second × variables + variable). */
  take(seconds: number): Float32Array {
    const out = new Float32Array(seconds * this.variables);
    for (let s = 0; s < seconds; s++) this.next(out, s * this.variables);
    return out;
  }

  /** mulberry32: fast, seedable, and good enough for test data. */
  #uniform(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  }

  /** Box-Muller, both halves used. */
  #gaussian(): number {
    if (this.#spare !== null) {
      const g = this.#spare;
      this.#spare = null;
      return g;
    }
    const r = Math.sqrt(-2 * Math.log(this.#uniform()));
    const a = 2 * Math.PI * this.#uniform();
    this.#spare = r * Math.sin(a);
    return r * Math.cos(a);
  }
}

/** The name of variable `i` on both sides; zero-padded so that name order is index order. */
export const variableName = (i: number) => `tag_${String(i).padStart(2, "0")}`;
