import { describe, expect, it } from "vitest";
import { centsToUsd, estimatedCostCents, overageCents, PLANS } from "./plans.ts";

describe("billing plans", () => {
  it("charges nothing extra within the inclusions", () => {
    expect(overageCents(PLANS.starter, 1_000_000, 10)).toBe(0);
    expect(estimatedCostCents(PLANS.starter, 0, 0)).toBe(19_900);
  });

  it("charges extra points per started block of 1,000 and extra devices each", () => {
    expect(overageCents(PLANS.starter, 1_000_001, 10)).toBe(50);
    expect(overageCents(PLANS.starter, 1_002_000, 10)).toBe(100);
    expect(overageCents(PLANS.professional, 10_000_000, 53)).toBe(3 * 1_200);
    expect(estimatedCostCents(PLANS.enterprise, 100_500_000, 251)).toBe(299_900 + 500 * 10 + 800);
  });

  it("converts cents to dollars with two decimals", () => {
    expect(centsToUsd(19_900)).toBe(199);
    expect(centsToUsd(1)).toBe(0.01);
    expect(centsToUsd(1_234_567)).toBe(12_345.67);
    expect(centsToUsd(29)).toBe(0.29);
  });
});
