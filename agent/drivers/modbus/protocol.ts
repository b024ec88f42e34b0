import type { AgentDevice } from "../../../shared/mqtt/agent-config.ts";

export type Transport =
  | { kind: "tcp"; host: string; port: number }
  | { kind: "rtu"; path: string; baudRate: number };

// Modbus exception codes (Modbus APP v1.1b3 §7).
const EXCEPTIONS: Record<number, string> = {
  1: "illegal function",
  2: "illegal data address",
  3: "illegal data value",
  4: "server device failure",
  5: "acknowledge",
  6: "server device busy",
  10: "gateway path unavailable",
  11: "gateway target device failed to respond",
};
export const ILLEGAL_DATA_ADDRESS = 2;

/** How a tag's quality detail names an exception: "exception 2 (illegal data address)". */
export function exceptionDetail(code: number): string {
  return `exception ${code} (${EXCEPTIONS[code] ?? "unknown"})`;
}

/** 19,200 baud is the required default of Modbus over Serial Line v1.02 §2.5.1. */
export const DEFAULT_BAUD_RATE = 19_200;

export function transportOf(device: AgentDevice): Transport {
  if (device.protocol === "modbus_rtu") {
    // For RTU, `host` carries the serial device path and `port` the baud rate.
    return { kind: "rtu", path: device.host ?? "/dev/ttyUSB0", baudRate: device.port ?? DEFAULT_BAUD_RATE };
  }
  return { kind: "tcp", host: device.host ?? "127.0.0.1", port: device.port ?? 502 };
}

/**
 * The silent interval that must separate two RTU frames: 3.5 character times of 11 bits, fixed at
 * 1.75 ms above 19,200 baud (Modbus over Serial Line v1.02 §2.5.1.1).
 */
export function silentIntervalMs(baudRate: number): number {
  return baudRate > 19_200 ? 1.75 : (3.5 * 11 * 1000) / baudRate;
}

/** A Modbus exception reply, as modbus-serial reports it. */
export function isExceptionError(err: unknown): err is { modbusCode: number; message: string } {
  return typeof err === "object" && err !== null && "modbusCode" in err && typeof err.modbusCode === "number";
}

/** modbus-serial's request timeout. */
export function isTimeout(err: unknown): boolean {
  return typeof err === "object" && err !== null && "errno" in err && err.errno === "ETIMEDOUT";
}
