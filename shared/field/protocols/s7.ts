import { z } from "zod";
import type { DataType } from "../data-types.ts";

/** ISO-on-TCP (RFC 1006 §6) port. */
export const S7_DEFAULT_PORT = 102;

/** Rack and slot of the CPU: a rack holds up to 32 slots; S7-300/400 configurations use racks 0–7. */
export const s7SettingsSchema = z.strictObject({
  rack: z
    .number()
    .int("must be an integer")
    .min(0, "must be between 0 and 7")
    .max(7, "must be between 0 and 7")
    .default(0)
    .describe("rack of the CPU"),
  slot: z
    .number()
    .int("must be an integer")
    .min(0, "must be between 0 and 31")
    .max(31, "must be between 0 and 31")
    .default(1)
    .describe("slot of the CPU (S7-300: 2; S7-1200/1500: 1 or 0)"),
});

export type S7Settings = z.output<typeof s7SettingsSchema>;

/** The S7 value types a variable can read, with the data types that hold each (issue 9 §3). */
export const S7_TYPE_DATA_TYPES = {
  BOOL: ["bool"],
  BYTE: ["uint16"],
  WORD: ["uint16"],
  INT: ["int16", "int"],
  DWORD: ["uint32"],
  DINT: ["int32"],
  REAL: ["float32", "float"],
  STRING: ["string"],
} as const satisfies Record<string, readonly DataType[]>;

export type S7ValueType = keyof typeof S7_TYPE_DATA_TYPES;

export type S7Address = {
  /** DB: a data block; M: markers (flags); I: process inputs; Q: process outputs. */
  area: "DB" | "M" | "I" | "Q";
  /** Data block number (DB only). */
  db: number | null;
  type: S7ValueType;
  byteOffset: number;
  /** Bit 0–7 of BOOL addresses. */
  bit: number | null;
  /** Maximum characters of a STRING. */
  length: number | null;
};

/** nodes7 spellings of the types in a data block (`DB1,REAL0`), longest first. */
const DB_TYPES: [string, S7ValueType][] = [
  ["STRING", "STRING"],
  ["DWORD", "DWORD"],
  ["BYTE", "BYTE"],
  ["WORD", "WORD"],
  ["DINT", "DINT"],
  ["REAL", "REAL"],
  ["INT", "INT"],
  ["DW", "DWORD"],
  ["DI", "DINT"],
  ["X", "BOOL"],
  ["B", "BYTE"],
  ["W", "WORD"],
  ["I", "INT"],
  ["R", "REAL"],
  ["S", "STRING"],
];
/** Sizes in M, I and Q (`MW20`, `MB4`, `MD8`, `MR12`); a bare offset with a bit is a BOOL (`M10.0`). */
const AREA_TYPES: Record<string, S7ValueType> = { B: "BYTE", W: "WORD", D: "DWORD", R: "REAL" };

const OFFSET_MAX = 65535;

/**
 * An S7 address in nodes7 syntax: `DB<n>,<type><byte>[.<bit or length>]` (`DB1,REAL0`,
 * `DB1,X12.0`, `DB1,S20.10`) or `<M|I|Q>[B|W|D|R]<byte>[.<bit>]` (`M10.0`, `MW20`, `I0.1`).
 * One value per variable: arrays (`DB1,REAL0.20`) are refused.
 */
export function parseS7Address(text: string): { ok: true; value: S7Address } | { ok: false; error: string } {
  const fail = (error: string) => ({ ok: false as const, error });
  const upper = text.toUpperCase();
  const db = /^DB(\d{1,5}),([A-Z]+)(\d{1,5})(?:\.(\d{1,3}))?$/.exec(upper);
  if (db) {
    const [, dbText = "", typeText = "", offsetText = "", suffix] = db;
    const dbNumber = Number(dbText);
    if (dbNumber < 1 || dbNumber > 65535) return fail("the data block number must be between 1 and 65535");
    const type = DB_TYPES.find(([name]) => name === typeText)?.[1];
    if (!type) return fail(`"${typeText}" is not an S7 type (X, BYTE, WORD, INT, DWORD, DINT, REAL or S)`);
    return finish("DB", dbNumber, type, offsetText, suffix);
  }
  const area = /^([MIQ])([BWDR]?)(\d{1,5})(?:\.(\d{1,3}))?$/.exec(upper);
  if (area) {
    const [, areaText = "", sizeText = "", offsetText = "", suffix] = area;
    const type = sizeText === "" ? "BOOL" : AREA_TYPES[sizeText];
    if (!type) return fail(`"${text}" is not an S7 address`);
    return finish(areaText as "M" | "I" | "Q", null, type, offsetText, suffix);
  }
  return fail(`"${text}" is not an S7 address (e.g. DB1,REAL0, DB1,X12.0, MW20 or I0.1)`);

  function finish(
    areaName: S7Address["area"],
    dbNumber: number | null,
    type: S7ValueType,
    offsetText: string,
    suffix: string | undefined,
  ) {
    const byteOffset = Number(offsetText);
    if (byteOffset > OFFSET_MAX) return fail(`the byte offset must be at most ${OFFSET_MAX}`);
    const value: S7Address = { area: areaName, db: dbNumber, type, byteOffset, bit: null, length: null };
    if (type === "BOOL") {
      if (suffix === undefined) return fail("a bit address needs its bit: <byte>.<0-7> (e.g. X12.0)");
      value.bit = Number(suffix);
      if (value.bit > 7) return fail("the bit must be between 0 and 7");
    } else if (type === "STRING") {
      if (suffix === undefined) return fail("a string needs its length: S<byte>.<1-254> (e.g. S20.10)");
      value.length = Number(suffix);
      if (value.length < 1 || value.length > 254) return fail("the string length must be between 1 and 254");
    } else if (suffix !== undefined) {
      return fail("one value per variable: arrays (.<count>) are not supported");
    }
    return { ok: true as const, value };
  }
}

/** The data types a variable at this address may declare. */
export function s7DataTypes(address: S7Address): readonly DataType[] {
  return S7_TYPE_DATA_TYPES[address.type];
}
