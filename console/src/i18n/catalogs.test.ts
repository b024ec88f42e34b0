import { describe, expect, it } from "vitest";
import { en } from "./en.ts";
import { es } from "./es.ts";
import { CATALOGS, detectLanguage, interpolate, LANGUAGES, localeFor } from "./i18n.ts";

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe("the console's catalogs", () => {
  const keys = Object.keys(en).sort();

  it("list the same keys in Spanish and English, none empty", () => {
    for (const language of LANGUAGES) {
      const catalog = CATALOGS[language];
      expect(Object.keys(catalog).sort(), language).toEqual(keys);
      for (const key of keys)
        expect(catalog[key as keyof typeof en].trim(), `${language} ${key}`).not.toBe("");
    }
    expect(keys.length).toBeGreaterThan(100);
  });

  it("use the same placeholders in both languages", () => {
    for (const key of keys) {
      const k = key as keyof typeof en;
      expect(placeholders(es[k]), key).toEqual(placeholders(en[k]));
    }
  });

  it("translate: apart from names and units, no Spanish text is the English one", () => {
    const same = keys.filter((k) => es[k as keyof typeof en] === en[k as keyof typeof en]);
    // Words that are the same in both languages, language names, and units.
    expect(same).toEqual([
      "asset.variable",
      "language.en",
      "language.es",
      "project.variableCount",
      "role.supervisor",
      "trend.range.1h",
      "trend.range.24h",
      "trend.range.30d",
      "trend.range.7d",
    ]);
  });
});

describe("language and locale", () => {
  it("follow the browser unless the switch chose, and default to Spanish", () => {
    expect(detectLanguage(null, ["en-GB", "es"])).toBe("en");
    expect(detectLanguage(null, ["es-CO", "en"])).toBe("es");
    expect(detectLanguage(null, ["fr-FR", "de"])).toBe("es");
    expect(detectLanguage(null, ["fr-FR", "en-US"])).toBe("en");
    expect(detectLanguage("es", ["en-US"])).toBe("es");
    expect(detectLanguage("xx", ["en-US"])).toBe("en");
  });

  it("take the browser's regional variant for dates and numbers", () => {
    expect(localeFor("es", ["es-MX", "en"])).toBe("es-MX");
    expect(localeFor("es", ["en-US"])).toBe("es-CO");
    expect(localeFor("en", ["es-CO", "en-GB"])).toBe("en-GB");
    expect(localeFor("en", ["en"])).toBe("en-US");
  });

  it("fill placeholders and leave unknown ones visible", () => {
    expect(interpolate("{count} of {total}", { count: 3, total: 5 })).toBe("3 of 5");
    expect(interpolate("{missing}", {})).toBe("{missing}");
  });
});
