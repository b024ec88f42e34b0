/** The keys of the ingest bodies (schema.ts), as the byte parser (ingest-columns.ts) matches them. */

// Keys, one bit each so an object's seen keys fit one number.
export const ASSET_ID = 1;
export const TIMESTAMP = 2;
export const READINGS = 4;
export const VARIABLE = 8;
export const VALUE = 16;
export const UNIT = 32;
export const ITEMS = 64;
/** Each key's text and closing quote, by its bit. */
const KEY_TEXT = new Map<number, Buffer>([
  [ASSET_ID, Buffer.from('asset_id"')],
  [TIMESTAMP, Buffer.from('timestamp"')],
  [READINGS, Buffer.from('readings"')],
  [VARIABLE, Buffer.from('variable"')],
  [VALUE, Buffer.from('value"')],
  [UNIT, Buffer.from('unit"')],
  [ITEMS, Buffer.from('items"')],
]);
const keyText = (key: number) => KEY_TEXT.get(key) ?? Buffer.alloc(1);
export const ASSET_ID_TEXT = keyText(ASSET_ID);
const TIMESTAMP_TEXT = keyText(TIMESTAMP);
const READINGS_TEXT = keyText(READINGS);
const VARIABLE_TEXT = keyText(VARIABLE);
const VALUE_TEXT = keyText(VALUE);
const UNIT_TEXT = keyText(UNIT);
const ITEMS_TEXT = keyText(ITEMS);

/** The only key a key text starting with byte `first` (then `third`) can be; 0 for none. */
export function keyStarting(first: number, third: number): number {
  switch (first) {
    case 0x76: // v
      return third === 0x72 ? VARIABLE : VALUE;
    case 0x61: // a
      return ASSET_ID;
    case 0x74: // t
      return TIMESTAMP;
    case 0x72: // r
      return READINGS;
    case 0x75: // u
      return UNIT;
    case 0x69: // i
      return ITEMS;
    default:
      return 0;
  }
}

export function textOf(key: number): Buffer {
  switch (key) {
    case VARIABLE:
      return VARIABLE_TEXT;
    case VALUE:
      return VALUE_TEXT;
    case UNIT:
      return UNIT_TEXT;
    case ASSET_ID:
      return ASSET_ID_TEXT;
    case TIMESTAMP:
      return TIMESTAMP_TEXT;
    case READINGS:
      return READINGS_TEXT;
    default:
      return ITEMS_TEXT;
  }
}
