import { describe, expect, it } from "vitest";
import { OWN_FILES_PAGE_CSP } from "./content-security-policy.ts";

describe("the CSP of the console and of the agent's local page", () => {
  const directives = new Map(
    OWN_FILES_PAGE_CSP.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1).join(" ")]),
  );

  it("allows scripts, styles, images and requests from the page's own origin only", () => {
    expect(directives.get("default-src")).toBe("'none'");
    for (const kind of ["script-src", "style-src", "img-src", "connect-src"])
      expect(directives.get(kind), kind).toBe("'self'");
  });

  it("allows nothing inline or evaluated, no base, form target or framing", () => {
    expect(OWN_FILES_PAGE_CSP).not.toMatch(/unsafe-|data:|blob:|\*/);
    expect(directives.get("base-uri")).toBe("'none'");
    expect(directives.get("form-action")).toBe("'none'");
    expect(directives.get("frame-ancestors")).toBe("'none'");
  });
});
