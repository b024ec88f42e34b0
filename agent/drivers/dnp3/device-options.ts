import { parseDeviceSettings } from "../../../shared/field/protocol-config.ts";
import { DNP3_DEFAULT_PORT } from "../../../shared/field/protocols/dnp3.ts";
import type { AgentDevice } from "../../../shared/mqtt/agent-config.ts";
import type { Dnp3DriverOptions } from "./options.ts";

/**
 * A deployed DNP3 device as the driver takes it. The deployment has already passed
 * configProblems (the same shared rules as the API), so a failure here is a bug, said plainly.
 * `event_poll_interval_ms` is null only for a device without variables: any interval then does.
 */
export function dnp3DriverOptions(device: AgentDevice, timeoutMs: number): Dnp3DriverOptions {
  const parsed = parseDeviceSettings("dnp3", device.settings);
  if (!parsed.ok) throw new Error(`device "${device.name}": invalid DNP3 settings`);
  const { master_address, integrity_poll_interval_ms, event_poll_interval_ms } = parsed.settings;
  const shortestPoll = Math.min(
    ...device.variables.map((v) => v.poll_interval_ms),
    integrity_poll_interval_ms,
  );
  return {
    host: device.host ?? "",
    port: device.port ?? DNP3_DEFAULT_PORT,
    outstationAddress: device.slave_id ?? 0,
    masterAddress: master_address,
    integrityPollIntervalMs: integrity_poll_interval_ms,
    eventPollIntervalMs: event_poll_interval_ms ?? shortestPoll,
    timeoutMs,
  };
}
