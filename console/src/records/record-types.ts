import type { AssetType } from "../api/types.ts";
import type { MessageKey } from "../i18n/i18n.ts";

/**
 * How a record field is entered and shown: a choice among the API's values, a number, free text,
 * an instant (entered in the project's zone, sent as UTC), or an asset of the project.
 */
export type FieldKind =
  | { kind: "choice"; options: readonly { value: string; labelKey: MessageKey }[] }
  | { kind: "number"; min?: number; max?: number }
  | { kind: "text"; long?: boolean; maxLength: number }
  | { kind: "instant" }
  | { kind: "asset"; assetType: AssetType };

export type RecordField = FieldKind & { name: string; labelKey: MessageKey; required: boolean };

export type RecordTypeId = "movements" | "downtime" | "well_tests" | "lab_results" | "meter_readings";

/** One of the five operational record types of ANH resolution 0651 (spec §2, "Operational record inputs"). */
export type RecordType = {
  id: RecordTypeId;
  /** Its collection in the API: GET lists, POST appends. */
  path: string;
  labelKey: MessageKey;
  /** The record's own instant: the list is ordered by it. */
  instant: string;
  fields: readonly RecordField[];
};

const MOVEMENT_TYPES = [
  { value: "production", labelKey: "movementType.production" },
  { value: "transfer", labelKey: "movementType.transfer" },
  { value: "injection", labelKey: "movementType.injection" },
  { value: "flare", labelKey: "movementType.flare" },
  { value: "loss", labelKey: "movementType.loss" },
] as const;

const MOVEMENTS: RecordType = {
  id: "movements",
  path: "/api/movements",
  labelKey: "records.type.movements",
  instant: "timestamp",
  fields: [
    { name: "timestamp", labelKey: "records.field.timestamp", required: true, kind: "instant" },
    {
      name: "movement_type",
      labelKey: "records.field.movement_type",
      required: true,
      kind: "choice",
      options: MOVEMENT_TYPES,
    },
    { name: "volume_bbls", labelKey: "records.field.volume_bbls", required: true, kind: "number", min: 0 },
    {
      name: "notes",
      labelKey: "records.field.notes",
      required: false,
      kind: "text",
      long: true,
      maxLength: 2000,
    },
  ],
};

export const RECORD_TYPES: readonly RecordType[] = [
  MOVEMENTS,
  {
    id: "downtime",
    path: "/api/downtime",
    labelKey: "records.type.downtime",
    instant: "started_at",
    fields: [
      { name: "started_at", labelKey: "records.field.started_at", required: true, kind: "instant" },
      { name: "ended_at", labelKey: "records.field.ended_at", required: false, kind: "instant" },
      { name: "reason", labelKey: "records.field.reason", required: true, kind: "text", maxLength: 500 },
    ],
  },
  {
    id: "well_tests",
    path: "/api/well-tests",
    labelKey: "records.type.well_tests",
    instant: "test_date",
    fields: [
      { name: "test_date", labelKey: "records.field.test_date", required: true, kind: "instant" },
      { name: "asset_id", labelKey: "records.field.well", required: true, kind: "asset", assetType: "well" },
      {
        name: "oil_rate_bopd",
        labelKey: "records.field.oil_rate_bopd",
        required: false,
        kind: "number",
        min: 0,
      },
      {
        name: "water_cut_pct",
        labelKey: "records.field.water_cut_pct",
        required: false,
        kind: "number",
        min: 0,
        max: 100,
      },
      { name: "gor_scf_bbl", labelKey: "records.field.gor_scf_bbl", required: false, kind: "number", min: 0 },
    ],
  },
  {
    id: "lab_results",
    path: "/api/lab-results",
    labelKey: "records.type.lab_results",
    instant: "sample_date",
    fields: [
      { name: "sample_date", labelKey: "records.field.sample_date", required: true, kind: "instant" },
      {
        name: "api_gravity",
        labelKey: "records.field.api_gravity",
        required: true,
        kind: "number",
        min: 0,
        max: 100,
      },
      {
        name: "bsw_pct",
        labelKey: "records.field.bsw_pct",
        required: false,
        kind: "number",
        min: 0,
        max: 100,
      },
      {
        name: "viscosity_cp",
        labelKey: "records.field.viscosity_cp",
        required: false,
        kind: "number",
        min: 0,
      },
    ],
  },
  {
    id: "meter_readings",
    path: "/api/meters/readings",
    labelKey: "records.type.meter_readings",
    instant: "read_at",
    fields: [
      { name: "read_at", labelKey: "records.field.read_at", required: true, kind: "instant" },
      {
        name: "meter_id",
        labelKey: "records.field.meter",
        required: true,
        kind: "asset",
        assetType: "meter",
      },
      {
        name: "reading_value",
        labelKey: "records.field.reading_value",
        required: true,
        kind: "number",
        min: 0,
      },
      { name: "unit", labelKey: "records.field.unit", required: false, kind: "text", maxLength: 32 },
    ],
  },
];

export function recordType(id: string | null): RecordType {
  return RECORD_TYPES.find((t) => t.id === id) ?? MOVEMENTS;
}
