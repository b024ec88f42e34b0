import { z } from "zod";
import { MAX_READING_MAGNITUDE } from "../../../shared/telemetry-limits.ts";
import type { PayloadColumns } from "../../http-workers/payload-columns.ts";
import { MAX_READINGS_PER_REQUEST } from "../../services/telemetry/limits.ts";
import { ByteStrings, FNV_OFFSET, FNV_PRIME } from "./byte-strings.ts";
import {
  ASSET_ID,
  ITEMS,
  keyStarting,
  READINGS,
  TIMESTAMP,
  textOf,
  UNIT,
  VALUE,
  VARIABLE,
} from "./ingest-keys.ts";
import type { IngestShape } from "./ingest-writer.ts";
import { type NumberOut, scanJsonNumber } from "./json-number.ts";

/*
 * POST /api/telemetry and /batch bodies read from their bytes straight into PayloadColumns, with
 * no object per reading: JSON.parse, the validation and toColumns cost ~1 µs a reading, most of
 * an HTTP worker's share of the ingest CPU. It answers exactly what toColumns(the validated body)
 * would, or declines (undefined) and the request takes that path, so it may decline any body it
 * finds unusual: non-ASCII bytes, escapes, keys the schema does not name (zod strips those),
 * repeated keys (JSON.parse keeps the last), more than MAX_READINGS_PER_REQUEST readings (the
 * service's 413). It never accepts a body that path refuses. Rules: schema.ts, fast-validate.ts.
 */

// zod's own patterns, as in fast-validate.ts.
const UUID = z.regexes.uuid();
const DATE_TIME = z.regexes.datetime({ offset: true });
const VARIABLE_MAX = 128;
const UNIT_MAX = 32;

const MAX_READINGS = MAX_READINGS_PER_REQUEST;
/** Every payload has a reading: at most as many payloads as readings, two strings each. */
const MAX_STRINGS = 4 * MAX_READINGS;

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

// Bits ByteStrings.proven keeps per string.
const IS_UUID = 1;
const IS_DATE_TIME = 2;

/** Thrown (one instance, no stack) to unwind to the caller's undefined. */
const DECLINED = new Error("declined");
const NO_BYTES = Buffer.alloc(0);
const decline = (): never => {
  throw DECLINED;
};

/** A parser per thread (requests parse synchronously, one at a time), its buffers reused. */
class ColumnsParser {
  #bytes: Buffer = NO_BYTES;
  #pos = 0;
  /** FNV-1a hash of the last string scanned. */
  #hash = 0;
  #payloads = 0;
  #readings = 0;
  /** Marks the variables seen in the current payload (a repeated one is the schema's 400). */
  #stamp = 0;
  readonly #number: NumberOut = { value: 0, text: undefined };
  readonly #strings = new ByteStrings(MAX_STRINGS);
  readonly #seenIn = new Int32Array(MAX_STRINGS);
  readonly #values = new Float64Array(MAX_READINGS);
  /** Per payload: asset, timestamp (-1: none), reading count (PayloadColumns' layout). */
  readonly #heads = new Int32Array(3 * MAX_READINGS);
  /** Per reading: variable, unit (-1: none). */
  readonly #tail = new Int32Array(2 * MAX_READINGS);
  // Per reading, until its payload ends: where its variable and unit lie, and their hashes.
  readonly #variableAt = new Int32Array(MAX_READINGS);
  readonly #variableEnd = new Int32Array(MAX_READINGS);
  readonly #variableHash = new Int32Array(MAX_READINGS);
  readonly #unitAt = new Int32Array(MAX_READINGS);
  readonly #unitEnd = new Int32Array(MAX_READINGS);
  readonly #unitHash = new Int32Array(MAX_READINGS);

  parse(body: Uint8Array, shape: IngestShape): PayloadColumns | undefined {
    this.#bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    this.#pos = 0;
    this.#payloads = 0;
    this.#readings = 0;
    this.#strings.reset(this.#bytes);
    this.#number.text = undefined;
    try {
      this.#space();
      this.#expect(OPEN_OBJECT);
      if (shape === "payload") this.#payload();
      else this.#batch();
      this.#space();
      if (this.#pos !== this.#bytes.length) decline();
      return this.#columns();
    } catch (error) {
      if (error === DECLINED) return undefined;
      throw error;
    } finally {
      this.#bytes = NO_BYTES;
      this.#number.text = undefined;
      this.#strings.release();
    }
  }

  /** {"items": [payload, …]}, after its "{". */
  #batch(): void {
    this.#space();
    if (this.#key() !== ITEMS) decline();
    this.#expect(OPEN_ARRAY);
    this.#space();
    do {
      this.#expect(OPEN_OBJECT);
      this.#payload();
    } while (this.#more(CLOSE_ARRAY));
    this.#space();
    this.#expect(CLOSE_OBJECT);
  }

  /** A TelemetryPayload, after its "{"; its strings join the table in toColumns' order. */
  #payload(): void {
    const first = this.#readings;
    let seen = 0;
    let assetAt = 0;
    let assetEnd = 0;
    let assetHash = 0;
    let timestampAt = -1;
    let timestampEnd = 0;
    let timestampHash = 0;
    this.#space();
    do {
      const key = this.#key();
      if ((seen & key) !== 0) decline();
      seen |= key;
      if (key === READINGS) {
        this.#expect(OPEN_ARRAY);
        this.#space();
        do {
          this.#expect(OPEN_OBJECT);
          this.#reading();
        } while (this.#more(CLOSE_ARRAY));
      } else if (key === ASSET_ID) {
        assetAt = this.#string();
        assetEnd = this.#pos - 1;
        assetHash = this.#hash;
      } else if (key === TIMESTAMP) {
        timestampAt = this.#string();
        timestampEnd = this.#pos - 1;
        timestampHash = this.#hash;
      } else {
        decline();
      }
    } while (this.#more(CLOSE_OBJECT));
    if ((seen & (ASSET_ID | READINGS)) !== (ASSET_ID | READINGS)) decline();

    const p = 3 * this.#payloads++;
    this.#heads[p] = this.#proven(assetAt, assetEnd, assetHash, IS_UUID, UUID);
    this.#heads[p + 1] =
      timestampAt === -1
        ? -1
        : this.#proven(timestampAt, timestampEnd, timestampHash, IS_DATE_TIME, DATE_TIME);
    this.#heads[p + 2] = this.#readings - first;
    if (this.#stamp === 0x7fffffff) {
      this.#seenIn.fill(0);
      this.#stamp = 0;
    }
    const stamp = ++this.#stamp;
    for (let r = first; r < this.#readings; r++) {
      const variable = this.#index(
        this.#variableAt[r] ?? 0,
        this.#variableEnd[r] ?? 0,
        this.#variableHash[r] ?? 0,
      );
      if (this.#seenIn[variable] === stamp) decline();
      this.#seenIn[variable] = stamp;
      this.#tail[2 * r] = variable;
      const unitAt = this.#unitAt[r] ?? -1;
      this.#tail[2 * r + 1] =
        unitAt === -1 ? -1 : this.#index(unitAt, this.#unitEnd[r] ?? 0, this.#unitHash[r] ?? 0);
    }
  }

  /** A TelemetryReading, after its "{". */
  #reading(): void {
    const r = this.#readings;
    if (r >= MAX_READINGS) decline();
    let seen = 0;
    this.#unitAt[r] = -1;
    this.#space();
    do {
      const key = this.#key();
      if ((seen & key) !== 0) decline();
      seen |= key;
      if (key === VALUE) {
        const end = scanJsonNumber(this.#bytes, this.#pos, this.#number);
        if (end === -1) decline();
        this.#pos = end;
        const value = this.#number.value;
        // NaN fails both comparisons; ±Infinity (1e999) one.
        if (!(value >= -MAX_READING_MAGNITUDE && value <= MAX_READING_MAGNITUDE)) decline();
        this.#values[r] = value;
      } else if (key === VARIABLE) {
        const at = this.#string();
        const length = this.#pos - 1 - at;
        if (length === 0 || length > VARIABLE_MAX) decline();
        this.#variableAt[r] = at;
        this.#variableEnd[r] = at + length;
        this.#variableHash[r] = this.#hash;
      } else if (key === UNIT) {
        const at = this.#string();
        if (this.#pos - 1 - at > UNIT_MAX) decline();
        this.#unitAt[r] = at;
        this.#unitEnd[r] = this.#pos - 1;
        this.#unitHash[r] = this.#hash;
      } else {
        decline();
      }
    } while (this.#more(CLOSE_OBJECT));
    if ((seen & (VARIABLE | VALUE)) !== (VARIABLE | VALUE)) decline();
    this.#readings = r + 1;
  }

  /**
   * A key and its ":", with the whitespace after: which of the schema's keys it is, or a decline
   * (any other key, or one spelt with an escape).
   */
  #key(): number {
    const bytes = this.#bytes;
    const at = this.#pos + 1;
    if (bytes[this.#pos] !== QUOTE) decline();
    const key = keyStarting(bytes[at] ?? -1, bytes[at + 2] ?? -1);
    if (key === 0) decline();
    const text = textOf(key);
    for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text[i]) decline();
    const end = at + text.length;
    if (bytes[end] === COLON) {
      this.#pos = end + 1;
    } else {
      this.#pos = end;
      this.#space();
      this.#expect(COLON);
    }
    this.#space();
    return key;
  }

  /**
   * A string of printable ASCII without escapes (anything else is declined): returns where its
   * text starts; #pos ends after the closing quote, #hash is the text's.
   */
  #string(): number {
    const bytes = this.#bytes;
    if (bytes[this.#pos] !== QUOTE) decline();
    const at = this.#pos + 1;
    let p = at;
    let hash = FNV_OFFSET;
    for (;;) {
      const c = bytes[p] ?? -1;
      if (c === QUOTE) break;
      // Below 0x20 JSON needs an escape; -1 is the end of the body.
      if (c < 0x20 || c >= 0x80 || c === BACKSLASH) decline();
      hash = Math.imul(hash ^ c, FNV_PRIME);
      p++;
    }
    this.#hash = hash;
    this.#pos = p + 1;
    return at;
  }

  /** After a member or element: true on ",", false on `close`; skips whitespace around either. */
  #more(close: number): boolean {
    this.#space();
    const c = this.#bytes[this.#pos++];
    if (c === close) return false;
    if (c !== COMMA) decline();
    this.#space();
    return true;
  }

  #expect(c: number): void {
    if (this.#bytes[this.#pos] !== c) decline();
    this.#pos++;
  }

  /** JSON whitespace (RFC 8259 §2): space, tab, line feed, carriage return. */
  #space(): void {
    const bytes = this.#bytes;
    let p = this.#pos;
    let c = bytes[p];
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = bytes[++p];
    this.#pos = p;
  }

  #index(at: number, end: number, hash: number): number {
    const i = this.#strings.indexOf(at, end, hash);
    if (i === -1) decline();
    return i;
  }

  /** The string's index once `pattern` accepts it (tested once per distinct string). */
  #proven(at: number, end: number, hash: number, bit: number, pattern: RegExp): number {
    const i = this.#index(at, end, hash);
    const proven = this.#strings.proven;
    if (((proven[i] ?? 0) & bit) === 0) {
      if (!pattern.test(this.#strings.list[i] ?? "")) decline();
      proven[i] = (proven[i] ?? 0) | bit;
    }
    return i;
  }

  #columns(): PayloadColumns {
    const readings = this.#readings;
    const payloads = this.#payloads;
    const buffer = new ArrayBuffer(readings * 8 + (payloads * 3 + readings * 2) * 4);
    new Float64Array(buffer, 0, readings).set(this.#values.subarray(0, readings));
    const ints = new Int32Array(buffer, readings * 8);
    ints.set(this.#heads.subarray(0, payloads * 3));
    ints.set(this.#tail.subarray(0, readings * 2), payloads * 3);
    return { strings: this.#strings.list, buffer, payloads, readings };
  }
}

let parser: ColumnsParser | undefined;

/**
 * The body of POST /api/telemetry (`payload`) or /batch (`batch`) as PayloadColumns, exactly
 * toColumns(the validated body), or undefined: then JSON.parse and the validators decide.
 */
export function parseIngestColumns(body: Uint8Array, shape: IngestShape): PayloadColumns | undefined {
  parser ??= new ColumnsParser();
  return parser.parse(body, shape);
}
