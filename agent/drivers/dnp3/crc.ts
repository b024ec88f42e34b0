/**
 * The DNP3 CRC-16 (IEEE 1815-2012 §9.2.4.1.2): polynomial x^16+x^13+x^12+x^11+x^10+x^8+x^6+x^5+x^2+1
 * (0x3D65), processed LSB first (reflected 0xA6BC), initial value 0, result complemented and sent
 * low byte first.
 */
const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa6bc : crc >>> 1;
    table[i] = crc;
  }
  return table;
})();

export function dnpCrc(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ (TABLE[(crc ^ (bytes[i] ?? 0)) & 0xff] ?? 0);
  return ~crc & 0xffff;
}

/** True when the two bytes after `end` hold the CRC of [start, end). */
export function crcMatches(bytes: Uint8Array, start: number, end: number): boolean {
  const crc = dnpCrc(bytes, start, end);
  return bytes[end] === (crc & 0xff) && bytes[end + 1] === crc >> 8;
}
