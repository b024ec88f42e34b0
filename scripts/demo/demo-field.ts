import { WELL_TAGS } from "../sim/well-model.ts";

/**
 * The demo project `npm start` provisions: one well and its tank read over Modbus TCP, and a
 * separator read over OPC UA, all from the simulator (scripts/sim/plc-simulator.ts). Objects are matched by name on later runs, so a second
 * start reuses them and only adds what is missing.
 */
export const DEMO_PROJECT = {
  name: "Demo field",
  description:
    "Provisioned by npm start: a well and a tank on a Modbus TCP PLC, and a separator on OPC UA, all simulated.",
  // A place name only: the console shows it as written, in either language ("simulated" is in the description).
  location: "Puerto Gaitán, Meta",
  timezone: "America/Bogota",
} as const;

/** How often the agent polls each demo tag: one new point per second per tag. */
export const DEMO_POLL_INTERVAL_MS = 1000;

type TagAlias = (typeof WELL_TAGS)[number]["alias"];

export type DemoAsset = {
  key: "well" | "tank";
  name: string;
  asset_type: "well" | "tank";
  latitude: number;
  longitude: number;
  /** One Modbus TCP device each, both on the simulator (unit 1): a device belongs to one asset. */
  device: { name: string; tags: readonly TagAlias[] };
};

/**
 * The separator: an OPC UA device on the simulator's server (security None, anonymous), so a
 * newcomer sees a second protocol beside Modbus. NodeIds as scripts/sim/opcua-separator.ts serves them.
 */
export const DEMO_SEPARATOR = {
  key: "separator",
  name: "Separator SP-1",
  asset_type: "station",
  latitude: 3.9717,
  longitude: -71.6929,
  device: {
    name: "Separator PLC",
    tags: [
      {
        alias: "separator_pressure",
        node_id: "ns=1;s=Separator.Pressure",
        unit: "psi",
        data_type: "float64",
      },
      { alias: "separator_level", node_id: "ns=1;s=Separator.Level", unit: "ft", data_type: "float32" },
      {
        alias: "separator_temperature",
        node_id: "ns=1;s=Separator.Temperature",
        unit: "degF",
        data_type: "float64",
      },
    ],
  },
} as const;

export const DEMO_ASSETS: readonly DemoAsset[] = [
  {
    key: "well",
    name: "Well DF-1",
    asset_type: "well",
    latitude: 3.9714,
    longitude: -71.6932,
    device: { name: "Wellhead PLC", tags: ["wellhead_pressure", "wellhead_temperature", "oil_flow_rate"] },
  },
  {
    key: "tank",
    name: "Tank TK-1",
    asset_type: "tank",
    latitude: 3.9721,
    longitude: -71.6925,
    device: { name: "Tank level PLC", tags: ["tank_level"] },
  },
];

/**
 * The simulated pressure swings 1450 ± 70 psi with a period of about an hour (scripts/sim/well-model.ts),
 * so the pressure rule fires about ten minutes after the simulator starts. The tank passes 16 ft
 * about half an hour in, then every 40 minutes or so (a truck empties it at 18 ft).
 */
export const DEMO_RULES = [
  {
    name: "Wellhead pressure high",
    variable_alias: "wellhead_pressure",
    condition: "gt",
    threshold: 1500,
    severity: "warning",
    deadband: 5,
  },
  {
    name: "Tank level high",
    variable_alias: "tank_level",
    condition: "gt",
    threshold: 16,
    severity: "critical",
    deadband: 0.5,
  },
] as const;

export function tagsOf(aliases: readonly TagAlias[]) {
  return WELL_TAGS.filter((t) => aliases.includes(t.alias));
}
