import { xmlText } from "./xml-text.ts";

/**
 * The characters of Windows-1252 (the MSI's code page, from Language 1033) above ASCII: its
 * 0x80–0x9F row (five of its bytes are unassigned) and Latin-1's 0xA0–0xFF.
 */
const CP1252_HIGH = new Set([
  ..."€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ",
  ...Array.from({ length: 0x60 }, (_, i) => String.fromCodePoint(0xa0 + i)),
]);

const inCp1252 = (ch: string) => (ch >= " " && ch <= "~") || CP1252_HIGH.has(ch);
const allInCp1252 = (text: string) => text.length > 0 && [...text].every(inCp1252);

/**
 * wixl (msitools 0.101) stores text in the MSI's code page: a character outside it empties the
 * whole value (测试) or crashes wixl with SIGSEGV (＄, 🛢, U+200B). So each such character becomes
 * its compatibility form (＄ → $, ﬁ → fi) or its letters without accents (Ő → O) when those fit,
 * else "?".
 */
function toCp1252(value: string): string {
  let out = "";
  for (const ch of value) {
    if (inCp1252(ch)) {
      out += ch;
      continue;
    }
    const compatible = ch.normalize("NFKC");
    const bare = ch.normalize("NFD").replace(/\p{M}/gu, "");
    out += allInCp1252(compatible) ? compatible : allInCp1252(bare) ? bare : "?";
  }
  return out;
}

/** U+00A0 NO-BREAK SPACE: in Windows-1252 (0xA0), and shown as a space, so a name stays readable. */
const BREAK = "\u00a0";

/**
 * Text that wixl's preprocessor gives back unchanged, so no user text reaches one of its constructs.
 * wixl expands `$(env.X)` (any variable of its environment), `$(sys.X)` and `$(var.X)` in every
 * attribute and text, and neither `$$(` nor `&#36;(` escapes it: `$$` yields one `$` and the second
 * `$` is read again, and entities are decoded before the preprocessor runs. A `$` before any other
 * character is dropped. So: a no-break space goes between `$` and `(` (`$(env.X)` reads
 * `$ (env.X)`), and each run of `$` gets one more, which wixl takes back off. WiX's `!(loc.X)`,
 * `!(bind.X)` and `<?define?>` are split the same way, although wixl 0.101 expands none of them
 * in a value: a tool that does must not see them either.
 */
export function wixlLiteral(value: string): string {
  return value
    .replace(/([$!])\(/g, (_m, sign: string) => `${sign}${BREAK}(`)
    .replaceAll("<?", `<${BREAK}?`)
    .replace(/\$+/g, (run) => `${run}$`);
}

/**
 * A value for the WiX source (attribute or element text): in the MSI's code page, out of wixl's
 * preprocessor's reach, XML-escaped. Every value product-wxs.ts writes goes through this.
 */
export function wxsText(value: string): string {
  return xmlText(wixlLiteral(toCp1252(value)));
}

/** A tag for WiX source templates: every interpolated value goes through wxsText, none is missed. */
export function wxs(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  let out = strings[0] ?? "";
  for (const [i, value] of values.entries()) out += wxsText(String(value)) + (strings[i + 1] ?? "");
  return out;
}
