import {
  detectLanguage,
  interpolate,
  LANGUAGE_STORAGE_KEY,
  type Language,
  localeFor,
} from "../src/i18n/i18n.ts";
import { en } from "./en.ts";
import { es } from "./es.ts";

export type PageKey = keyof typeof en;
export const PAGE_CATALOGS: Record<Language, Record<PageKey, string>> = { en, es };

function isPageKey(key: string): key is PageKey {
  return Object.hasOwn(en, key);
}

/**
 * The local page's language, chosen as the console chooses (console/src/i18n/i18n.ts): the
 * browser's, unless the switch chose one (remembered in localStorage), else Spanish.
 */
export class PageI18n {
  #language: Language;
  #locale: string;
  readonly #browser: readonly string[];
  readonly #storage: Storage | null;

  constructor(browserLanguages: readonly string[], storage: Storage | null) {
    this.#browser = browserLanguages;
    this.#storage = storage;
    this.#language = detectLanguage(storage?.getItem(LANGUAGE_STORAGE_KEY) ?? null, browserLanguages);
    this.#locale = localeFor(this.#language, browserLanguages);
  }

  get language(): Language {
    return this.#language;
  }

  /** A BCP 47 tag for Intl: dates and numbers follow it. */
  get locale(): string {
    return this.#locale;
  }

  t(key: PageKey, params?: Record<string, string | number>): string {
    return interpolate(PAGE_CATALOGS[this.#language][key], params);
  }

  /**
   * The label of a code the agent sends (`quality.timeout`), or the code itself when the catalog
   * has none: an agent newer than this page may send a code it does not know.
   */
  label(prefix: "quality" | "severity" | "alarmType" | "deviceState", code: string): string {
    const key = `${prefix}.${code}`;
    return isPageKey(key) ? this.t(key) : code;
  }

  /** The switch: overrides the browser's language and is remembered. */
  set(language: Language): void {
    this.#storage?.setItem(LANGUAGE_STORAGE_KEY, language);
    this.#language = language;
    this.#locale = localeFor(language, this.#browser);
  }
}
