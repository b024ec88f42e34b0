import { describe, expect, it } from "vitest";
import { type FieldSpec, formBody, inputValue, numberOrText } from "./form-body.ts";

const specs: FieldSpec[] = [
  { name: "name", label: "config.device.name", kind: "text" },
  { name: "port", label: "config.device.port", kind: "number" },
  { name: "enabled", label: "config.enabled", kind: "checkbox" },
  { name: "settings.rack", label: "config.device.rack", kind: "number" },
  { name: "settings.password", label: "config.device.password", kind: "password" },
  { name: "settings.security_policy", label: "config.device.securityPolicy", kind: "select" },
];

describe("a form's JSON body", () => {
  it("nests dotted names, sends numbers as numbers, and leaves empty inputs out", () => {
    expect(
      formBody(specs, {
        name: " PLC 1 ",
        port: "502",
        enabled: false,
        "settings.rack": "0",
        "settings.password": "",
        "settings.security_policy": "",
      }),
    ).toEqual({ name: " PLC 1 ", port: 502, enabled: false, settings: { rack: 0 } });
  });

  it("sends what is not a number as typed, for the API to name the field", () => {
    expect(formBody(specs, { name: "", port: "50two", enabled: true })).toEqual({
      port: "50two",
      enabled: true,
    });
  });

  it("reads numbers as people type them, a comma for the decimal point included", () => {
    expect(numberOrText("0,5")).toBe(0.5);
    expect(numberOrText(" -12.25 ")).toBe(-12.25);
    expect(numberOrText("1e3")).toBe(1000);
    expect(numberOrText("1.000,5")).toBe("1.000,5");
    expect(numberOrText("0x10")).toBe("0x10");
  });

  it("shows API values in inputs: null empty, numbers as JSON writes them", () => {
    expect(inputValue(null)).toBe("");
    expect(inputValue(0.1)).toBe("0.1");
    expect(inputValue(true)).toBe(true);
  });
});
