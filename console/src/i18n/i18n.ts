import { en } from "./en.ts";
import { es } from "./es.ts";

export type Language = "en" | "es";
export type MessageKey = keyof typeof en;
export type Catalog = Record<MessageKey, string>;

export const LANGUAGES: readonly Language[] = ["es", "en"];
export const CATALOGS: Record<Language, Catalog> = { en, es };

/** Where the language switch is remembered (only the choice; never anything of the session). */
export const LANGUAGE_STORAGE_KEY = "caudal.language";

/** The remembered choice if any, else the first browser language we have, else Spanish (the users are in Colombia). */
export function detectLanguage(stored: string | null, browserLanguages: readonly string[]): Language {
  if (stored === "en" || stored === "es") return stored;
  for (const tag of browserLanguages) {
    const primary = tag.toLowerCase().split("-")[0];
    if (primary === "en" || primary === "es") return primary;
  }
  return "es";
}

/** The browser's own regional variant of the language when it has one (es-CO, en-GB), else a default. */
export function localeFor(language: Language, browserLanguages: readonly string[]): string {
  const own = browserLanguages.find(
    (tag) => tag.toLowerCase().split("-")[0] === language && tag.includes("-"),
  );
  return own ?? (language === "es" ? "es-CO" : "en-US");
}

/** `{name}` placeholders filled from `params`. */
export function interpolate(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(params, name) ? String(params[name]) : whole,
  );
}

type Listener = () => void;

/**
 * The language a page shows and the locale of its dates and numbers: the switch's choice
 * (remembered), else the browser's, else Spanish. The console and the agent's local page both
 * choose so, each translating with catalogs of its own (I18n here, PageI18n there).
 */
export class LanguageChoice {
  #language: Language;
  #locale: string;
  readonly #browser: readonly string[];
  readonly #storage: Storage | null;
  readonly #listeners = new Set<Listener>();

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

  /** The switch: overrides the browser's language and is remembered. */
  set(language: Language): void {
    this.#storage?.setItem(LANGUAGE_STORAGE_KEY, language);
    if (language === this.#language) return;
    this.#language = language;
    this.#locale = localeFor(language, this.#browser);
    for (const listener of this.#listeners) listener();
  }

  onChange(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** The console's strings in the language chosen. */
export class I18n extends LanguageChoice {
  t(key: MessageKey, params?: Record<string, string | number>): string {
    return interpolate(CATALOGS[this.language][key], params);
  }
}
