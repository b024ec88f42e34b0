import { z } from "zod";

/** IANA-registered DNP3 port (IEEE 1815-2012 annex). */
export const DNP3_DEFAULT_PORT = 20000;
/** IEEE 1815-2012 §9.2.5: 0xFFF0..0xFFFF are reserved (broadcast and self-address). */
export const DNP3_ADDRESS_MAX = 0xffef;

const interval = (min: number) =>
  z
    .number()
    .int("must be an integer")
    .min(min, `must be between ${min} and 86400000`)
    .max(86_400_000, `must be between ${min} and 86400000`);

/**
 * DNP3 master settings. `event_poll_interval_ms` null means "the device's variables' poll
 * interval": the deployment resolves it to the shortest interval among them.
 */
export const dnp3SettingsSchema = z.strictObject({
  master_address: z
    .number()
    .int("must be an integer")
    .min(0, `must be between 0 and ${DNP3_ADDRESS_MAX}`)
    .max(DNP3_ADDRESS_MAX, `must be between 0 and ${DNP3_ADDRESS_MAX}`)
    .default(1)
    .describe("this master's link address"),
  integrity_poll_interval_ms: interval(1000).default(3_600_000).describe("class 0 (integrity) poll interval"),
  event_poll_interval_ms: interval(100)
    .nullable()
    .default(null)
    .describe(
      "class 1, 2 and 3 (event) poll interval; null: the shortest poll interval of the device's variables",
    ),
});

export type Dnp3Settings = z.output<typeof dnp3SettingsSchema>;

/** Static point types a variable can name (IEEE 1815-2012 §A); their event groups update them. */
export const DNP3_POINT_GROUPS = {
  1: "binary input",
  20: "counter",
  30: "analog input",
} as const;

export type Dnp3Point = { group: keyof typeof DNP3_POINT_GROUPS; index: number };

/** `g<group>:<index>`, e.g. `g30:3` (analog input 3), `g1:0` (binary input 0), `g20:2` (counter 2). */
export function parseDnp3Address(
  text: string,
): { ok: true; value: Dnp3Point } | { ok: false; error: string } {
  const m = /^g(\d{1,3}):(\d{1,5})$/.exec(text);
  if (!m) return { ok: false, error: `"${text}" is not a DNP3 point: g<group>:<index> (e.g. g30:3)` };
  const group = Number(m[1]);
  const index = Number(m[2]);
  if (!(group in DNP3_POINT_GROUPS)) {
    const known = Object.entries(DNP3_POINT_GROUPS).map(([g, name]) => `g${g} ${name}`);
    return { ok: false, error: `group ${group} is not supported (${known.join(", ")})` };
  }
  if (index > 65535) return { ok: false, error: "the point index must be between 0 and 65535" };
  return { ok: true, value: { group: group as Dnp3Point["group"], index } };
}
