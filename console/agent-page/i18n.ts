import { interpolate, type Language, LanguageChoice } from "../src/i18n/i18n.ts";
import { en } from "./en.ts";
import { es } from "./es.ts";

export type PageKey = keyof typeof en;
export const PAGE_CATALOGS: Record<Language, Record<PageKey, string>> = { en, es };

function isPageKey(key: string): key is PageKey {
  return Object.hasOwn(en, key);
}

/** The local page's strings, in the language chosen as the console chooses it (LanguageChoice). */
export class PageI18n extends LanguageChoice {
  t(key: PageKey, params?: Record<string, string | number>): string {
    return interpolate(PAGE_CATALOGS[this.language][key], params);
  }

  /**
   * The label of a code the agent sends (`quality.timeout`), or the code itself when the catalog
   * has none: an agent newer than this page may send a code it does not know.
   */
  label(prefix: "quality" | "severity" | "alarmType" | "deviceState", code: string): string {
    const key = `${prefix}.${code}`;
    return isPageKey(key) ? this.t(key) : code;
  }
}
