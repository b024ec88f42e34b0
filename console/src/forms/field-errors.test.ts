import { describe, expect, it } from "vitest";
import { ApiError } from "../api/api-error.ts";
import { fieldErrors, refusalOf } from "./field-errors.ts";

const known = ["alias", "poll_interval_ms", "settings.rack", "address"];

describe("the API's validation message, by field", () => {
  it("puts each named field's message beside it and keeps the rest for the form", () => {
    const e = fieldErrors(
      "poll_interval_ms: must be between 100 and 86400000; settings.rack: must be between 0 and 7; body: has unknown field x",
      known,
    );
    expect(Object.fromEntries(e.fields)).toEqual({
      poll_interval_ms: "must be between 100 and 86400000",
      "settings.rack": "must be between 0 and 7",
    });
    expect(e.other).toEqual(["body: has unknown field x"]);
  });

  it("joins two messages of one field, and never cuts a message at a '; ' inside it", () => {
    const e = fieldErrors(
      'alias: must not be empty; address: "x; y" is not an OPC UA NodeId (e.g. ns=2;s=Well1.Pressure); alias: is too long',
      known,
    );
    expect(e.fields.get("alias")).toBe("must not be empty; is too long");
    expect(e.fields.get("address")).toBe('"x; y" is not an OPC UA NodeId (e.g. ns=2;s=Well1.Pressure)');
    expect(e.other).toEqual([]);
  });

  it("keeps a sentence that names no field (a 409) whole, for the form", () => {
    const e = fieldErrors('alias "pressure" is already used by a variable of this device', known);
    expect(e.fields.size).toBe(0);
    expect(e.other).toEqual(['alias "pressure" is already used by a variable of this device']);
  });

  it("reads an API refusal by field, and anything else as a whole", () => {
    const refused = new ApiError(400, { error: "ValidationFailed", message: "alias: is required" }, null);
    expect(Object.fromEntries(refusalOf(refused, known).fields)).toEqual({ alias: "is required" });
    const offline = refusalOf(new TypeError("Failed to fetch"), known);
    expect(offline).toEqual({ fields: new Map(), other: ["Failed to fetch"] });
  });
});
