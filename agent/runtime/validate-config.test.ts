import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { AgentDevice, AgentRuntimeConfig, AgentVariable } from "../../shared/mqtt/agent-config.ts";
import { configProblems } from "./validate-config.ts";

const projectId = randomUUID();

function variable(v: Partial<AgentVariable> = {}): AgentVariable {
  return {
    id: randomUUID(),
    alias: "p",
    data_type: "float",
    register_address: null,
    register_kind: "holding",
    word_order: "ABCD",
    scale_factor: null,
    unit: null,
    address: null,
    poll_interval_ms: 1000,
    deadband: 0,
    ...v,
  };
}

function device(d: Partial<AgentDevice>, variables: AgentVariable[]): AgentRuntimeConfig {
  return {
    project_id: projectId,
    devices: [
      {
        id: randomUUID(),
        asset_id: randomUUID(),
        name: "PLC",
        protocol: "modbus_tcp",
        host: "10.0.0.1",
        port: 502,
        slave_id: 1,
        variables,
        ...d,
      },
    ],
    alert_rules: [],
  };
}

/** The agent refuses a deployment whose settings or addresses break its protocol's rules (issue 9 §1). */
describe("configProblems: protocol-aware checks", () => {
  it("Modbus: register_address is required (and only for Modbus)", () => {
    expect(configProblems(device({}, [variable({ register_address: 10 })]), projectId)).toEqual([]);
    expect(configProblems(device({}, [variable()]), projectId)).toEqual([
      'device "PLC", variable "p": register_address: required for Modbus',
    ]);
  });

  it("DNP3: address, not register_address; the outstation address goes to 65519", () => {
    const ok = device({ protocol: "dnp3", port: 20000, slave_id: 65519 }, [variable({ address: "g30:3" })]);
    expect(configProblems(ok, projectId)).toEqual([]);
    const bad = device({ protocol: "dnp3", slave_id: 10, settings: { master_address: 70000 } }, [
      variable({ address: "g30v5:3" }),
      variable({ alias: "q" }),
    ]);
    const problems = configProblems(bad, projectId);
    expect(problems).toContain(`device "PLC": settings.master_address: must be between 0 and 65519`);
    expect(problems.some((p) => p.startsWith('device "PLC", variable "p": address: '))).toBe(true);
    expect(problems).toContain('device "PLC", variable "q": address: required for dnp3');
  });

  it("OPC UA and S7: bad settings, NodeIds, S7 addresses and data types are named", () => {
    const opc = device({ protocol: "opc_ua", settings: { security_mode: "Sign", security_policy: "None" } }, [
      variable({ address: "Well1.Pressure" }),
    ]);
    const opcProblems = configProblems(opc, projectId);
    expect(opcProblems.some((p) => p.startsWith('device "PLC": settings.security_policy: '))).toBe(true);
    expect(opcProblems.some((p) => p.startsWith('device "PLC", variable "p": address: '))).toBe(true);
    const s7 = device({ protocol: "s7", settings: { rack: 0, slot: 99 } }, [
      variable({ address: "DB1,REAL0", data_type: "int16" }),
    ]);
    const s7Problems = configProblems(s7, projectId);
    expect(s7Problems.some((p) => p.startsWith('device "PLC": settings.slot: '))).toBe(true);
    expect(s7Problems.some((p) => p.startsWith('device "PLC", variable "p": data_type: '))).toBe(true);
  });

  it("a host that is missing, for a network protocol, is named", () => {
    const problems = configProblems(
      device({ protocol: "s7", host: null }, [variable({ address: "DB1,REAL0" })]),
      projectId,
    );
    expect(problems).toContain('device "PLC": host: required for s7');
  });
});
