import { Seeded } from "./seeded.ts";

/**
 * Realistic field readings (issue 13's storage workload): float32 samples of a slow random walk
 * with Gaussian noise, as a pressure or temperature transmitter gives them.
 */
export type SensorShape = {
  /** Level the walk starts from. */
  level: number;
  /** Standard deviation of the walk's step per sample. */
  step: number;
  /** Standard deviation of the measurement noise. */
  noise: number;
};

/** The shape of sensor `index`: levels from 10 to 2,000, noise 0.1% of the level, slow drift. */
export function sensorShape(index: number): SensorShape {
  const level = 10 + ((index * 397) % 1990);
  return { level, step: level * 1e-4, noise: level * 1e-3 };
}

/** A stateful generator of one sensor's float32 readings. */
export class SensorWalk {
  readonly #random: Seeded;
  readonly #shape: SensorShape;
  #walk: number;

  constructor(shape: SensorShape, seed: number) {
    this.#random = new Seeded(seed);
    this.#shape = shape;
    this.#walk = shape.level;
  }

  next(): number {
    this.#walk += this.#random.gaussian() * this.#shape.step;
    return Math.fround(this.#walk + this.#random.gaussian() * this.#shape.noise);
  }

  take(count: number): Float64Array {
    const out = new Float64Array(count);
    for (let i = 0; i < count; i++) out[i] = this.next();
    return out;
  }
}
