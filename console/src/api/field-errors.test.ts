import { describe, expect, it } from "vitest";
import { ApiError } from "./api-error.ts";
import { fieldErrors } from "./field-errors.ts";

const refused = (status: number, error: string, message: string) =>
  new ApiError(status, { error, message }, null);

describe("the API's validation messages, per field", () => {
  it("split ValidationFailed by the fields named, the rest kept whole", () => {
    const err = refused(
      400,
      "ValidationFailed",
      "volume_bbls: must be 0 or more; timestamp: must be an ISO 8601 date-time with Z or an offset; body: too large",
    );
    const { byField, other } = fieldErrors(err, ["volume_bbls", "timestamp", "notes"]);
    expect(Object.fromEntries(byField)).toEqual({
      volume_bbls: "must be 0 or more",
      timestamp: "must be an ISO 8601 date-time with Z or an offset",
    });
    expect(other).toBe("body: too large");
  });

  it("leave other refusals and failures whole", () => {
    expect(fieldErrors(refused(409, "Conflict", "record already superseded"), ["x"])).toEqual({
      byField: new Map(),
      other: "record already superseded",
    });
    expect(fieldErrors(new TypeError("Failed to fetch"), ["x"]).other).toBe("Failed to fetch");
    expect(fieldErrors(refused(400, "ValidationFailed", "x: bad"), ["x"]).other).toBeNull();
  });
});
