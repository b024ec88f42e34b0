import { describe, expect, it } from "vitest";
import {
  addDays,
  isCalendarDate,
  lastClosedDay,
  localDateOf,
  productionDay,
  utcOffsetAt,
} from "./production-day.ts";

const iso = (ms: number) => new Date(ms).toISOString();

describe("production day boundaries", () => {
  it("America/Bogota (UTC−5, no DST): 05:00Z to 05:00Z", () => {
    const day = productionDay("2025-03-10", "America/Bogota");
    expect(iso(day.startMs)).toBe("2025-03-10T05:00:00.000Z");
    expect(iso(day.endMs)).toBe("2025-03-11T05:00:00.000Z");
    // A reading at 04:59Z belongs to the previous Bogota day.
    expect(localDateOf(Date.parse("2025-03-11T04:59:59.999Z"), "America/Bogota")).toBe("2025-03-10");
    expect(localDateOf(Date.parse("2025-03-11T05:00:00.000Z"), "America/Bogota")).toBe("2025-03-11");
  });

  it("Asia/Tokyo (UTC+9): the day starts at 15:00Z of the previous UTC date", () => {
    const day = productionDay("2025-03-10", "Asia/Tokyo");
    expect(iso(day.startMs)).toBe("2025-03-09T15:00:00.000Z");
    expect(iso(day.endMs)).toBe("2025-03-10T15:00:00.000Z");
  });

  it("Asia/Kathmandu (UTC+05:45)", () => {
    const day = productionDay("2025-01-01", "Asia/Kathmandu");
    expect(iso(day.startMs)).toBe("2024-12-31T18:15:00.000Z");
    expect(utcOffsetAt(day.startMs, "Asia/Kathmandu")).toBe("+05:45");
  });

  it("America/New_York: 23 hours in spring, 25 in autumn", () => {
    const spring = productionDay("2025-03-09", "America/New_York");
    expect(iso(spring.startMs)).toBe("2025-03-09T05:00:00.000Z");
    expect(iso(spring.endMs)).toBe("2025-03-10T04:00:00.000Z");
    expect((spring.endMs - spring.startMs) / 3_600_000).toBe(23);
    const autumn = productionDay("2025-11-02", "America/New_York");
    expect((autumn.endMs - autumn.startMs) / 3_600_000).toBe(25);
    expect(utcOffsetAt(autumn.startMs, "America/New_York")).toBe("-04:00");
    expect(utcOffsetAt(autumn.endMs, "America/New_York")).toBe("-05:00");
  });

  it("America/Santiago: a midnight that does not exist starts the day at 01:00 local", () => {
    // 2024-09-08: clocks jump from 00:00 −04 to 01:00 −03.
    const day = productionDay("2024-09-08", "America/Santiago");
    expect(iso(day.startMs)).toBe("2024-09-08T04:00:00.000Z");
    expect(localDateOf(day.startMs - 1, "America/Santiago")).toBe("2024-09-07");
    expect(utcOffsetAt(day.startMs, "America/Santiago")).toBe("-03:00");
    expect((day.endMs - day.startMs) / 3_600_000).toBe(23);
  });

  it("lastClosedDay is yesterday in the zone", () => {
    const now = Date.parse("2025-03-11T04:59:00Z"); // 23:59 on the 10th in Bogota
    expect(lastClosedDay(now, "America/Bogota").date).toBe("2025-03-09");
    expect(lastClosedDay(now + 60_000, "America/Bogota").date).toBe("2025-03-10");
    expect(lastClosedDay(now, "Asia/Tokyo").date).toBe("2025-03-10");
  });

  it("calendar dates", () => {
    expect(isCalendarDate("2024-02-29")).toBe(true);
    expect(isCalendarDate("2025-02-29")).toBe(false);
    expect(isCalendarDate("2025-13-01")).toBe(false);
    expect(isCalendarDate("2025-1-01")).toBe(false);
    expect(addDays("2024-12-31", 1)).toBe("2025-01-01");
    expect(addDays("2024-03-01", -1)).toBe("2024-02-29");
  });

  it("an unknown zone throws RangeError", () => {
    expect(() => productionDay("2025-01-01", "Mars/Olympus")).toThrow(RangeError);
  });
});
