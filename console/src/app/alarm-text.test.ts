import { describe, expect, it } from "vitest";
import { commLossMessage, ruleAlarmMessage } from "../../../shared/alarms/message.ts";
import { Formats } from "../i18n/format.ts";
import { I18n } from "../i18n/i18n.ts";
import { alarmText } from "./alarm-text.ts";

describe("an alarm's text in the console's language", () => {
  const es = new I18n(["es-CO"], null);
  const en = new I18n(["en-US"], null);
  it("words the server's communication-loss sentence in Spanish, from its figures", () => {
    const alarm = {
      alarm_type: "comm_loss" as const,
      value: 1200,
      message: commLossMessage("Pozo DF-1", 1200, 600),
    };
    expect(alarmText(alarm, es, new Formats("es-CO"))).toBe(
      "Pozo DF-1: sin datos desde hace 1.200 s (límite 600 s)",
    );
    expect(alarmText(alarm, en, new Formats("en-US"))).toBe("Pozo DF-1: no data for 1,200 s (limit 600 s)");
  });
  it("keeps a rule's alarm as written: a name, a variable and symbols", () => {
    const message = ruleAlarmMessage(
      { name: "Presión alta", variable_alias: "pressure", condition: "gt", threshold: 1500 },
      1520,
    );
    expect(alarmText({ alarm_type: "high", value: 1520, message }, es)).toBe(message);
  });
});
