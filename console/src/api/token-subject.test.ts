import { describe, expect, it } from "vitest";
import { tokenSubject } from "./token-subject.ts";

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("the user id in an access token", () => {
  it("is the payload's sub, base64url with or without padding", () => {
    const sub = "0f8fad5b-d9cb-469f-a165-70867728950e";
    expect(tokenSubject(`${part({ alg: "HS256" })}.${part({ sub, role: "admin" })}.sig`)).toBe(sub);
    // This payload's base64url holds "_" and "-" (plain base64's "/" and "+") and lacks padding.
    expect(tokenSubject(`h.${part({ sub: "?>?>", n: 1 })}.s`)).toBe("?>?>");
  });

  it("is null when the token has no readable sub", () => {
    expect(tokenSubject("not-a-jwt")).toBeNull();
    expect(tokenSubject("h.%%%.s")).toBeNull();
    expect(tokenSubject(`h.${part({ role: "admin" })}.s`)).toBeNull();
    expect(tokenSubject(`h.${part(["sub"])}.s`)).toBeNull();
  });
});
