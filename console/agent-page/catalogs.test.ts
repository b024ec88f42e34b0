import { describe, expect, it } from "vitest";
import type { Quality } from "../../agent/drivers/driver.ts";
import type { LocalDeviceState } from "../../shared/agent-local-api.ts";
import { ALARM_SEVERITIES, ALARM_TYPES } from "../../shared/alarms/rule.ts";
import { en } from "./en.ts";
import { es } from "./es.ts";
import { PAGE_CATALOGS, PageI18n } from "./i18n.ts";

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

/** Storage as the page uses it (localStorage), in memory. */
function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (i) => [...items.keys()][i] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, value),
  };
}

describe("the local page's catalogs", () => {
  const keys = Object.keys(en).sort();

  it("list the same keys in Spanish and English, none empty", () => {
    for (const [language, catalog] of Object.entries(PAGE_CATALOGS)) {
      expect(Object.keys(catalog).sort(), language).toEqual(keys);
      for (const key of keys)
        expect(catalog[key as keyof typeof en].trim(), `${language} ${key}`).not.toBe("");
    }
  });

  it("use the same placeholders in both languages", () => {
    for (const key of keys) {
      const k = key as keyof typeof en;
      expect(placeholders(es[k]), key).toEqual(placeholders(en[k]));
    }
  });

  it("translate: apart from the language names and 'Variable', no Spanish text is the English one", () => {
    const same = keys.filter((k) => es[k as keyof typeof en] === en[k as keyof typeof en]);
    expect(same).toEqual(["alarms.variable", "language.en", "language.es", "values.variable"]);
  });

  it("name every device state, quality and severity the agent sends", () => {
    // Records over the agent's own unions: a new state or quality there fails the type check here.
    const states: Record<LocalDeviceState, true> = {
      ok: true,
      failing: true,
      disabled: true,
      unsupported: true,
    };
    const qualities: Record<Quality | "out_of_range", true> = {
      good: true,
      timeout: true,
      device_exception: true,
      comm_error: true,
      config_error: true,
      out_of_range: true,
    };
    const codes = {
      deviceState: Object.keys(states),
      quality: Object.keys(qualities),
      severity: ALARM_SEVERITIES,
      alarmType: ALARM_TYPES,
    };
    for (const [prefix, list] of Object.entries(codes))
      for (const code of list) expect(keys, `${prefix}.${code}`).toContain(`${prefix}.${code}`);
  });
});

describe("PageI18n", () => {
  it("follows the browser, and the switch overrides it and is remembered", () => {
    const storage = memoryStorage();
    const first = new PageI18n(["en-GB", "es"], storage);
    expect(first.language).toBe("en");
    expect(first.locale).toBe("en-GB");
    first.set("es");
    expect(first.t("values.title")).toBe("Valores en vivo");
    const again = new PageI18n(["en-GB"], storage);
    expect(again.language).toBe("es");
    expect(again.locale).toBe("es-CO");
  });

  it("labels a known code and shows an unknown one as it came", () => {
    const i18n = new PageI18n(["es-CO"], null);
    expect(i18n.label("quality", "timeout")).toBe("Sin respuesta");
    expect(i18n.label("quality", "brand_new_quality")).toBe("brand_new_quality");
    expect(i18n.t("page.updated", { time: "10:00" })).toBe("Actualizado 10:00");
  });
});
