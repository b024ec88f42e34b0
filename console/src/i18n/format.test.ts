import { describe, expect, it } from "vitest";
import { Formats, offsetMs, utcToZoned, zonedToUtc } from "./format.ts";

describe("formats in the user's locale and the project's zone", () => {
  const instant = Date.parse("2025-03-10T17:05:09Z");

  it("write numbers and dates the Colombian way in Spanish", () => {
    const es = new Formats("es-CO");
    expect(es.number(1234.5)).toBe("1.234,5");
    expect(es.dateTime(instant, "America/Bogota")).toMatch(/^10\/03\/(20)?25,? 12:05:09/);
    expect(es.age(12_000)).toMatch(/hace 12 s/);
    expect(es.usd(1234.5)).toMatch(/^US\$\s1\.234,50$/);
  });

  it("and the American way in English, in the zone given", () => {
    const en = new Formats("en-US");
    expect(en.number(1234.5)).toBe("1,234.5");
    expect(en.dateTime(instant, "America/Bogota")).toMatch(/^3\/10\/25,? 12:05:09\sPM/);
    expect(en.dateTime(instant, "Asia/Tokyo")).toMatch(/^3\/11\/25,? 2:05:09\sAM/);
    expect(en.age(3 * 3600_000 + 5)).toMatch(/3 hr\. ago/);
    expect(en.usd(1234.5)).toBe("$1,234.50");
  });

  it("convert wall-clock inputs of a zone to instants and back, across a DST change", () => {
    expect(new Date(zonedToUtc("2025-03-10T12:05", "America/Bogota")).toISOString()).toBe(
      "2025-03-10T17:05:00.000Z",
    );
    expect(utcToZoned(Date.parse("2025-03-10T17:05:00Z"), "America/Bogota")).toBe("2025-03-10T12:05");
    // New York springs forward on 2025-03-09: 01:30 is UTC−5, 03:30 is UTC−4.
    expect(new Date(zonedToUtc("2025-03-09T01:30", "America/New_York")).toISOString()).toBe(
      "2025-03-09T06:30:00.000Z",
    );
    expect(new Date(zonedToUtc("2025-03-09T03:30", "America/New_York")).toISOString()).toBe(
      "2025-03-09T07:30:00.000Z",
    );
    expect(offsetMs(Date.parse("2025-07-01T00:00:00Z"), "Asia/Tokyo")).toBe(9 * 3600_000);
    expect(zonedToUtc("not a time", "UTC")).toBeNaN();
  });
});
