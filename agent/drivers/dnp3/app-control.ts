/**
 * The application control octet (IEEE 1815-2012 §4.2.2.4.1): FIR 0x80, FIN 0x40, CON 0x20,
 * UNS 0x10, SEQ in the low nibble.
 */
export type AppControl = { fir: boolean; fin: boolean; con: boolean; uns: boolean; seq: number };

export function decodeControl(byte: number): AppControl {
  return {
    fir: (byte & 0x80) !== 0,
    fin: (byte & 0x40) !== 0,
    con: (byte & 0x20) !== 0,
    uns: (byte & 0x10) !== 0,
    seq: byte & 0x0f,
  };
}

export function encodeControl(c: AppControl): number {
  return (c.fir ? 0x80 : 0) | (c.fin ? 0x40 : 0) | (c.con ? 0x20 : 0) | (c.uns ? 0x10 : 0) | (c.seq & 0x0f);
}

/** Function codes used here (§4.2.2.4.2, Table 4-2/4-3). */
export const FUNC = { CONFIRM: 0x00, READ: 0x01, WRITE: 0x02, RESPONSE: 0x81, UNSOLICITED: 0x82 } as const;
