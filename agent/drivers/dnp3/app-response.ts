import { type AppControl, decodeControl, FUNC } from "./app-control.ts";
import { decodeIin, type Iin } from "./iin.ts";
import { walkObjects } from "./object-headers.ts";
import { decodeObject, type Measurement } from "./objects.ts";

export type Response = {
  control: AppControl;
  unsolicited: boolean;
  iin: Iin;
  measurements: Measurement[];
  /** Set when the object data could not be read to its end; `measurements` holds what came before. */
  error?: string;
};

export type ParsedResponse = { ok: true; response: Response } | { ok: false; error: string };

/** A response or unsolicited response fragment (IEEE 1815-2012 §4.2.2.4: control, function, IIN). */
export function parseResponse(apdu: Uint8Array): ParsedResponse {
  if (apdu.length < 4) return { ok: false, error: `response of ${apdu.length} bytes, at least 4 expected` };
  const func = apdu[1];
  if (func !== FUNC.RESPONSE && func !== FUNC.UNSOLICITED)
    return { ok: false, error: `function 0x${(func ?? 0).toString(16)} is not a response` };
  const { measurements, error } = parseObjects(apdu.subarray(4));
  const response: Response = {
    control: decodeControl(apdu[0] ?? 0),
    unsolicited: func === FUNC.UNSOLICITED,
    iin: decodeIin(apdu[2] ?? 0, apdu[3] ?? 0),
    measurements,
  };
  if (error !== undefined) response.error = error;
  return { ok: true, response };
}

/** The measurements in the object headers of a response, in the order sent. */
export function parseObjects(bytes: Uint8Array): { measurements: Measurement[]; error?: string } {
  const { headers, error } = walkObjects(bytes, true);
  const measurements: Measurement[] = [];
  for (const h of headers)
    for (const item of h.items) {
      const m = decodeObject(h.group, h.variation, item.index, item.data);
      if (m) measurements.push(m);
    }
  return error === undefined ? { measurements } : { measurements, error };
}
