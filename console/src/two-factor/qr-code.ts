import qrcode from "qrcode-generator";

/** Modules of light margin around the symbol: the quiet zone ISO/IEC 18004 §6.3.8 requires. */
export const QUIET_ZONE = 4;

export type QrSymbol = {
  /** Modules per side, without the quiet zone (21 for version 1, +4 per version). */
  size: number;
  /** One SVG path of the dark modules, one unit per module, horizontal runs merged. */
  path: string;
};

/**
 * The QR code of `text` (an otpauth:// URI), as an SVG path drawn in this page rather than an
 * image or markup from the library: nothing is inserted as HTML, and the CSP needs no exception.
 * Error correction M (15 %), the version the smallest that fits.
 */
export function qrSymbol(text: string): QrSymbol {
  const qr = qrcode(0, "M");
  qr.addData(text, "Byte");
  qr.make();
  const size = qr.getModuleCount();
  let path = "";
  for (let row = 0; row < size; row++) {
    let col = 0;
    while (col < size) {
      if (!qr.isDark(row, col)) {
        col++;
        continue;
      }
      const start = col;
      while (col < size && qr.isDark(row, col)) col++;
      path += `M${start} ${row}h${col - start}v1h${start - col}z`;
    }
  }
  return { size, path };
}
