import type { Protocol } from "../../shared/field/data-types.ts";
import { dnp3DriverOptions } from "./dnp3/device-options.ts";
import { Dnp3Driver } from "./dnp3/dnp3-driver.ts";
import type { DriverFactory } from "./driver.ts";
import { ModbusDriver } from "./modbus/modbus-driver.ts";
import { S7Driver } from "./s7/s7-driver.ts";

/** Protocols this agent version can poll. OPC UA comes behind the same interface. */
const FACTORIES: Partial<Record<Protocol, DriverFactory>> = {
  modbus_tcp: (device, options) => new ModbusDriver(device, options),
  modbus_rtu: (device, options) => new ModbusDriver(device, options),
  s7: (device, options) => new S7Driver(device, options),
  dnp3: (device, options) => new Dnp3Driver(dnp3DriverOptions(device, options.timeoutMs)),
};

export const SUPPORTED_PROTOCOLS: ReadonlySet<Protocol> = new Set(Object.keys(FACTORIES) as Protocol[]);

export const driverFactory: DriverFactory = (device, options) => {
  const factory = FACTORIES[device.protocol];
  if (!factory) throw new Error(`protocol ${device.protocol} is not supported`);
  return factory(device, options);
};
