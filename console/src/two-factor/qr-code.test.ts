import qrcode from "qrcode-generator";
import { describe, expect, it } from "vitest";
import { qrSymbol } from "./qr-code.ts";

const URI =
  "otpauth://totp/Caudal:ana%40campo.example?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Caudal&algorithm=SHA1&digits=6&period=30";

/** The dark modules the path draws, as "row,col". */
function darkModules(path: string): Set<string> {
  const dark = new Set<string>();
  for (const [, x, y, w] of path.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
    for (let col = Number(x); col < Number(x) + Number(w); col++) dark.add(`${y},${col}`);
  }
  return dark;
}

describe("the QR code of a two-factor set-up", () => {
  const { size, path } = qrSymbol(URI);
  const dark = darkModules(path);

  it("is a whole QR version, big enough for the URI at level M", () => {
    expect((size - 17) % 4).toBe(0);
    // 129 bytes: version 7 holds 122 at error correction M, version 8 (49×49) holds 152.
    expect(size).toBe(49);
    expect(path).toMatch(/^(M\d+ \d+h\d+v1h-\d+z)+$/);
  });

  it("draws exactly the library's dark modules", () => {
    const qr = qrcode(0, "M");
    qr.addData(URI, "Byte");
    qr.make();
    let expected = 0;
    for (let row = 0; row < size; row++) {
      for (let col = 0; col < size; col++) {
        if (qr.isDark(row, col)) expected++;
        expect(dark.has(`${row},${col}`), `${row},${col}`).toBe(qr.isDark(row, col));
      }
    }
    expect(dark.size).toBe(expected);
  });

  it("has the three finder patterns: a dark ring, a light ring, a dark 3×3 centre", () => {
    for (const [top, left] of [
      [0, 0],
      [0, size - 7],
      [size - 7, 0],
    ] as const) {
      for (let r = 0; r < 7; r++) {
        for (let c = 0; c < 7; c++) {
          const ring = Math.max(Math.abs(r - 3), Math.abs(c - 3));
          expect(dark.has(`${top + r},${left + c}`), `${top + r},${left + c}`).toBe(ring !== 2);
        }
      }
    }
  });
});
