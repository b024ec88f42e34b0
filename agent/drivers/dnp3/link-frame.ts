import { crcMatches, dnpCrc } from "./crc.ts";

/**
 * FT3 link frames (IEEE 1815-2012 §9.2.4): 05 64, LEN, CONTROL, DEST (LE), SRC (LE), header CRC,
 * then the user data in blocks of up to 16 bytes, each followed by its CRC. LEN counts CONTROL,
 * DEST, SRC and the user data (5 + n, n ≤ 250).
 */

/** Primary-to-secondary function codes (PRM = 1), §9.2.4.1.3.2. */
export const PRIMARY = {
  RESET_LINK_STATES: 0,
  TEST_LINK_STATES: 2,
  CONFIRMED_USER_DATA: 3,
  UNCONFIRMED_USER_DATA: 4,
  REQUEST_LINK_STATUS: 9,
} as const;

/** Secondary-to-primary function codes (PRM = 0). */
export const SECONDARY = { ACK: 0, NACK: 1, LINK_STATUS: 11, NOT_SUPPORTED: 15 } as const;

export const MAX_USER_DATA = 250;
const HEADER_SIZE = 10;
const MAX_FRAME_SIZE = 292;

export type LinkFrame = {
  /** DIR: set on frames sent by a master. */
  fromMaster: boolean;
  /** PRM: set on frames that start a link transaction. */
  primary: boolean;
  /** FCB (primary) or reserved (secondary). */
  fcb: boolean;
  /** FCV (primary) or DFC (secondary). */
  fcv: boolean;
  func: number;
  destination: number;
  source: number;
  userData: Uint8Array;
};

const carriesData = (primary: boolean, func: number) =>
  primary && (func === PRIMARY.CONFIRMED_USER_DATA || func === PRIMARY.UNCONFIRMED_USER_DATA);

const KNOWN_PRIMARY = new Set<number>(Object.values(PRIMARY));
const KNOWN_SECONDARY = new Set<number>(Object.values(SECONDARY));

export function encodeLinkFrame(frame: LinkFrame): Uint8Array {
  const n = frame.userData.length;
  if (n > MAX_USER_DATA) throw new RangeError(`link user data is ${n} bytes, at most ${MAX_USER_DATA}`);
  const blocks = Math.ceil(n / 16);
  const out = new Uint8Array(HEADER_SIZE + n + blocks * 2);
  out[0] = 0x05;
  out[1] = 0x64;
  out[2] = 5 + n;
  out[3] =
    (frame.fromMaster ? 0x80 : 0) |
    (frame.primary ? 0x40 : 0) |
    (frame.fcb ? 0x20 : 0) |
    (frame.fcv ? 0x10 : 0) |
    (frame.func & 0x0f);
  out[4] = frame.destination & 0xff;
  out[5] = frame.destination >> 8;
  out[6] = frame.source & 0xff;
  out[7] = frame.source >> 8;
  writeCrc(out, 0, 8);
  let at = HEADER_SIZE;
  for (let i = 0; i < n; i += 16) {
    const block = frame.userData.subarray(i, Math.min(i + 16, n));
    out.set(block, at);
    writeCrc(out, at, at + block.length);
    at += block.length + 2;
  }
  return out;
}

function writeCrc(out: Uint8Array, start: number, end: number): void {
  const crc = dnpCrc(out, start, end);
  out[end] = crc & 0xff;
  out[end + 1] = crc >> 8;
}

/** Total size on the wire of a frame whose LEN byte is `len`. */
function frameSize(len: number): number {
  const n = len - 5;
  return HEADER_SIZE + n + Math.ceil(n / 16) * 2;
}

/**
 * Cuts a byte stream into frames. Bad frames are counted and skipped, never thrown: after a bad
 * header the reader moves one byte on and looks for the next 05 64 (a stray start sequence
 * must not hide the real frame behind it). Its buffer never holds more than one frame.
 */
export class LinkFrameReader {
  readonly errors = { headerCrc: 0, bodyCrc: 0, badLength: 0, badFunction: 0 };
  #pending: Uint8Array = new Uint8Array(0);

  push(chunk: Uint8Array): LinkFrame[] {
    const buf = concat(this.#pending, chunk);
    const frames: LinkFrame[] = [];
    let at = 0;
    while (at < buf.length) {
      if (buf[at] !== 0x05 || (at + 1 < buf.length && buf[at + 1] !== 0x64)) {
        at += 1;
        continue;
      }
      if (buf.length - at < HEADER_SIZE) break;
      if (!crcMatches(buf, at, at + 8)) {
        this.errors.headerCrc += 1;
        at += 1;
        continue;
      }
      const len = buf[at + 2] ?? 0;
      const control = buf[at + 3] ?? 0;
      const primary = (control & 0x40) !== 0;
      const func = control & 0x0f;
      if (len < 5 || carriesData(primary, func) !== len > 5) {
        this.errors.badLength += 1;
        at += HEADER_SIZE;
        continue;
      }
      if (!(primary ? KNOWN_PRIMARY : KNOWN_SECONDARY).has(func)) {
        this.errors.badFunction += 1;
        at += HEADER_SIZE;
        continue;
      }
      const size = frameSize(len);
      if (buf.length - at < size) break;
      const userData = readBlocks(buf, at + HEADER_SIZE, len - 5);
      if (userData === undefined) {
        this.errors.bodyCrc += 1;
        at += size;
        continue;
      }
      frames.push({
        fromMaster: (control & 0x80) !== 0,
        primary,
        fcb: (control & 0x20) !== 0,
        fcv: (control & 0x10) !== 0,
        func,
        destination: (buf[at + 4] ?? 0) | ((buf[at + 5] ?? 0) << 8),
        source: (buf[at + 6] ?? 0) | ((buf[at + 7] ?? 0) << 8),
        userData,
      });
      at += size;
    }
    this.#pending = buf.slice(at, at + Math.min(buf.length - at, MAX_FRAME_SIZE));
    return frames;
  }
}

/** The user data of a frame body, or undefined when a block's CRC is wrong. */
function readBlocks(buf: Uint8Array, start: number, n: number): Uint8Array | undefined {
  const out = new Uint8Array(n);
  let at = start;
  for (let i = 0; i < n; i += 16) {
    const size = Math.min(16, n - i);
    if (!crcMatches(buf, at, at + size)) return undefined;
    out.set(buf.subarray(at, at + size), i);
    at += size + 2;
  }
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
