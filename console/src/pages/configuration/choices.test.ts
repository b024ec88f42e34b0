import { describe, expect, it } from "vitest";
import { ALARM_CONDITIONS } from "../../../../shared/alarms/rule.ts";
import { LINUX_ARCHES as API_ARCHES } from "../../../../shared/distribution/linux-arch.ts";
import {
  DATA_TYPES as API_DATA_TYPES,
  PROTOCOLS as API_PROTOCOLS,
  REGISTER_KINDS as API_REGISTER_KINDS,
  WORD_ORDERS as API_WORD_ORDERS,
} from "../../../../shared/field/data-types.ts";
import {
  OPC_UA_SECURITY_MODES as API_MODES,
  OPC_UA_SECURITY_POLICIES as API_POLICIES,
} from "../../../../shared/field/protocols/opc-ua.ts";
import {
  CONDITIONS,
  DATA_TYPES,
  LINUX_ARCHES,
  OPC_UA_SECURITY_MODES,
  OPC_UA_SECURITY_POLICIES,
  PROTOCOLS,
  REGISTER_KINDS,
  WORD_ORDERS,
} from "./choices.ts";

const sorted = (values: readonly string[]) => [...values].sort();

describe("the configuration page's choices", () => {
  it("are exactly the values the API's schemas accept", () => {
    expect(sorted(PROTOCOLS)).toEqual(sorted(API_PROTOCOLS));
    expect(sorted(DATA_TYPES)).toEqual(sorted(API_DATA_TYPES));
    expect(sorted(REGISTER_KINDS.map(([kind]) => kind))).toEqual(sorted(API_REGISTER_KINDS));
    expect(sorted(WORD_ORDERS)).toEqual(sorted(API_WORD_ORDERS));
    expect(sorted(OPC_UA_SECURITY_MODES)).toEqual(sorted(API_MODES));
    expect(sorted(OPC_UA_SECURITY_POLICIES)).toEqual(sorted(API_POLICIES));
    expect(sorted(CONDITIONS.map(([c]) => c))).toEqual(sorted(ALARM_CONDITIONS));
    expect(sorted(LINUX_ARCHES)).toEqual(sorted(API_ARCHES));
  });
});
