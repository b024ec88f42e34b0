import type { Protocol } from "../../shared/field/data-types.ts";
import { dnp3DriverOptions } from "./dnp3/device-options.ts";
import { Dnp3Driver } from "./dnp3/dnp3-driver.ts";
import type { DriverFactory } from "./driver.ts";
import { ModbusDriver } from "./modbus/modbus-driver.ts";
import { OpcUaDriver } from "./opcua/opcua-driver.ts";
import { S7Driver } from "./s7/s7-driver.ts";

/** What drivers need from the agent beyond the device: where its OPC UA PKI lives. */
export type DriverEnvironment = { pkiDir: string };

type Factory = (...args: [...Parameters<DriverFactory>, DriverEnvironment]) => ReturnType<DriverFactory>;

/** The protocols this agent version polls. */
const FACTORIES: Partial<Record<Protocol, Factory>> = {
  modbus_tcp: (device, options) => new ModbusDriver(device, options),
  modbus_rtu: (device, options) => new ModbusDriver(device, options),
  opc_ua: (device, options, env) => new OpcUaDriver(device, { ...options, pkiDir: env.pkiDir }),
  s7: (device, options) => new S7Driver(device, options),
  dnp3: (device, options) => new Dnp3Driver(dnp3DriverOptions(device, options.timeoutMs)),
};

export const SUPPORTED_PROTOCOLS: ReadonlySet<Protocol> = new Set(Object.keys(FACTORIES) as Protocol[]);

/** The agent's driver factory: `pkiDir` is `<data_dir>/pki`. */
export function createDriverFactory(env: DriverEnvironment): DriverFactory {
  return (device, options) => {
    const factory = FACTORIES[device.protocol];
    if (!factory) throw new Error(`protocol ${device.protocol} is not supported`);
    return factory(device, options, env);
  };
}
