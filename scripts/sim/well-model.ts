import { encodeRegisters } from "../../agent/drivers/modbus/decode.ts";
import type { ModbusTcpServer } from "./modbus-tcp-server.ts";

/** The demo PLC's register map: float32, big-endian (ABCD), holding registers. */
export const WELL_TAGS = [
  { alias: "wellhead_pressure", unit: "psi", register: 0 },
  { alias: "wellhead_temperature", unit: "degF", register: 2 },
  { alias: "oil_flow_rate", unit: "bbl/d", register: 4 },
  { alias: "tank_level", unit: "ft", register: 6 },
] as const;

/**
 * Values that move like a producing well: pressure and temperature drift with slow waves and
 * noise, flow follows pressure, and the tank fills with production until a truck empties it.
 */
export class WellModel {
  readonly #server: ModbusTcpServer;
  #level = 6;
  #t = 0;

  constructor(server: ModbusTcpServer) {
    this.#server = server;
  }

  step(seconds = 1): void {
    this.#t += seconds;
    const noise = () => (Math.random() - 0.5) * 2;
    const pressure = 1450 + 60 * Math.sin(this.#t / 600) + 8 * Math.sin(this.#t / 37) + noise() * 3;
    const temperature = 182 + 4 * Math.sin(this.#t / 1800) + noise() * 0.4;
    const flow = Math.max(0, 820 + (pressure - 1450) * 1.6 + noise() * 6);
    // 20 ft tank, about 1,670 bbl; a truck takes it down to 4 ft at 18 ft.
    this.#level += (flow / 86_400) * seconds * (16 / 1670) * 60;
    if (this.#level >= 18) this.#level = 4;
    const values = [pressure, temperature, flow, this.#level];
    WELL_TAGS.forEach((tag, i) => {
      const regs = encodeRegisters(values[i] ?? 0, "float32", "ABCD");
      this.#server.holding.set(regs, tag.register);
    });
  }
}
