import { type AppControl, decodeControl, encodeControl, FUNC } from "./app-control.ts";
import { RESTART_IIN_INDEX } from "./iin.ts";
import { walkObjects } from "./object-headers.ts";

/** Qualifier 0x06: all objects (no range); 0x00: 1-byte start-stop; 0x07: 1-byte count. */
const Q_ALL = 0x06;
const Q_RANGE8 = 0x00;
const Q_COUNT8 = 0x07;
/** g60 class objects: variation 1 is class 0 (static data), 2–4 are event classes 1–3. */
const CLASS_GROUP = 60;

export type EventClass = 0 | 1 | 2 | 3;

/** A single-fragment request: FIR, FIN, no CON, not unsolicited (§4.2.2.4.1). */
const requestControl = (seq: number) => encodeControl({ fir: true, fin: true, con: false, uns: false, seq });

export function buildReadClasses(seq: number, classes: readonly EventClass[]): Uint8Array {
  const out = [requestControl(seq), FUNC.READ];
  for (const c of classes) out.push(CLASS_GROUP, c + 1, Q_ALL);
  return Uint8Array.from(out);
}

/** Confirms a response fragment, echoing its SEQ and UNS bit (§4.2.2.4.1.3, §4.3.2). */
export function buildConfirm(seq: number, unsolicited: boolean): Uint8Array {
  return Uint8Array.of(
    encodeControl({ fir: true, fin: true, con: false, uns: unsolicited, seq }),
    FUNC.CONFIRM,
  );
}

/** Writes IIN1.7 (g80v1 index 7) to 0, the master's acknowledgement of a restart (§4.2.2.7.2). */
export function buildClearRestart(seq: number): Uint8Array {
  return Uint8Array.of(
    requestControl(seq),
    FUNC.WRITE,
    80,
    1,
    Q_RANGE8,
    RESTART_IIN_INDEX,
    RESTART_IIN_INDEX,
    0,
  );
}

/** Writes the absolute time, g50v1: 48-bit milliseconds since 1970-01-01 UTC, little-endian. */
export function buildWriteTime(seq: number, epochMs: number): Uint8Array {
  const out = Uint8Array.of(requestControl(seq), FUNC.WRITE, 50, 1, Q_COUNT8, 1, 0, 0, 0, 0, 0, 0);
  let t = Math.max(0, Math.floor(epochMs));
  for (let i = 6; i < 12; i++) {
    out[i] = t % 256;
    t = Math.floor(t / 256);
  }
  return out;
}

/** What the scripted outstation needs to know of a request. */
export type Request = AppControl & {
  func: number;
  unsolicited: boolean;
  /** Classes asked for by a READ, in order. */
  classes: EventClass[];
  /** A WRITE of g80v1 index 7 = 0. */
  clearsRestart: boolean;
  /** The time of a g50v1 WRITE, ms since 1970. */
  writtenTime?: number;
};

export type ParsedRequest = { ok: true; request: Request } | { ok: false; error: string };

export function parseRequest(apdu: Uint8Array): ParsedRequest {
  if (apdu.length < 2) return { ok: false, error: `request of ${apdu.length} bytes, at least 2 expected` };
  const control = decodeControl(apdu[0] ?? 0);
  const func = apdu[1] ?? 0;
  const request: Request = { ...control, func, unsolicited: control.uns, classes: [], clearsRestart: false };
  if (func === FUNC.CONFIRM) return { ok: true, request };
  const { headers, error } = walkObjects(apdu.subarray(2), func !== FUNC.READ);
  if (error !== undefined) return { ok: false, error };
  for (const h of headers) {
    if (func === FUNC.READ && h.group === CLASS_GROUP && h.variation >= 1 && h.variation <= 4)
      request.classes.push((h.variation - 1) as EventClass);
    if (func !== FUNC.WRITE) continue;
    for (const item of h.items) {
      if (h.group === 80 && h.variation === 1 && item.index === RESTART_IIN_INDEX && item.data[0] === 0)
        request.clearsRestart = true;
      if (h.group === 50 && h.variation === 1) {
        let t = 0;
        for (let i = 5; i >= 0; i--) t = t * 256 + (item.data[i] ?? 0);
        request.writtenTime = t;
      }
    }
  }
  return { ok: true, request };
}
