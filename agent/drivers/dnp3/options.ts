/**
 * What the DNP3 driver needs, as the protocol-aware device configuration will carry it:
 * `host`/`port` of the device, `slave_id` as the outstation's link address, and the device
 * `settings` `master_address`, `integrity_poll_interval_ms`, `event_poll_interval_ms`.
 */
export type Dnp3DriverOptions = {
  host: string;
  /** IANA port 20000 is DNP3's registered port. */
  port: number;
  /** The device's `slave_id`: the outstation's link address. */
  outstationAddress: number;
  /** `settings.master_address`: this agent's link address. */
  masterAddress: number;
  /** `settings.integrity_poll_interval_ms`. */
  integrityPollIntervalMs: number;
  /** `settings.event_poll_interval_ms`. */
  eventPollIntervalMs: number;
  /** How long to wait for the TCP connection and for each response fragment. */
  timeoutMs: number;
};

export const DNP3_DEFAULT_PORT = 20000;
/** Link addresses 0xFFF0–0xFFFF are reserved (broadcast and self-address), IEEE 1815-2012 §9.2.5.1. */
export const MAX_LINK_ADDRESS = 65519;

/** The problems in `options`, one sentence each; empty when they are usable. */
export function dnp3OptionsProblems(options: Dnp3DriverOptions): string[] {
  const problems: string[] = [];
  const address = (name: string, v: number) => {
    if (!Number.isInteger(v) || v < 0 || v > MAX_LINK_ADDRESS)
      problems.push(`${name} must be an integer 0–${MAX_LINK_ADDRESS}`);
  };
  address("outstation address (slave_id)", options.outstationAddress);
  address("master_address", options.masterAddress);
  if (options.outstationAddress === options.masterAddress)
    problems.push("master_address must differ from the outstation address");
  const positive = (name: string, v: number) => {
    if (!Number.isInteger(v) || v < 1) problems.push(`${name} must be a positive integer`);
  };
  positive("integrity_poll_interval_ms", options.integrityPollIntervalMs);
  positive("event_poll_interval_ms", options.eventPollIntervalMs);
  positive("timeout", options.timeoutMs);
  if (!Number.isInteger(options.port) || options.port < 1 || options.port > 65535)
    problems.push("port must be an integer 1–65535");
  if (!options.host) problems.push("host is required");
  return problems;
}
