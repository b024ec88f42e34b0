import { xmlText } from "./xml-text.ts";

/** The Windows service's name (`sc query caudal-agent`), the same as the Linux unit's. */
export const SERVICE_NAME = "caudal-agent";
export const SERVICE_DISPLAY_NAME = "Caudal Agent";
/** WinSW finds its configuration by its own file name: caudal-agent-service.exe reads caudal-agent-service.xml. */
export const SERVICE_EXE = "caudal-agent-service.exe";
export const SERVICE_XML = "caudal-agent-service.xml";
export const AGENT_EXE = "caudal-agent.exe";
export const AGENT_CONFIG_FILE = "agent.json";

/** The service's description, in the service manager and the MSI: it names the project. */
export function serviceDescription(projectId: string): string {
  return `Caudal edge agent for project ${projectId}`;
}

/**
 * Restarts after a failure: 10 s, 30 s, then every 60 s, the count reset after a day without one.
 * WinSW applies <onfailure> only when it installs the service itself; the MSI installs it, so it
 * sets the same actions with sc.exe (product-wxs.ts).
 */
export const FAILURE_RESTART_DELAYS_S = [10, 30, 60] as const;
export const FAILURE_RESET_S = 86_400;

/**
 * WinSW 1.17's configuration (the one node-windows ships, a .NET 2.0 program): run the agent from
 * the install folder with its configuration file, restart it on failure, keep its output in
 * logs\ there. %BASE% is the folder of caudal-agent-service.exe.
 */
export function winswServiceXml(description: string): string {
  const onFailure = FAILURE_RESTART_DELAYS_S.map((s) => `  <onfailure action="restart" delay="${s} sec"/>`);
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    "<service>",
    `  <id>${SERVICE_NAME}</id>`,
    `  <name>${SERVICE_DISPLAY_NAME}</name>`,
    `  <description>${xmlText(description)}</description>`,
    `  <executable>%BASE%\\${AGENT_EXE}</executable>`,
    // The configuration's relative data_dir is resolved from here.
    "  <workingdirectory>%BASE%</workingdirectory>",
    `  <env name="AGENT_CONFIG" value="%BASE%\\${AGENT_CONFIG_FILE}"/>`,
    // The same small young generation as the Linux unit (systemd/caudal-agent.service).
    '  <env name="NODE_OPTIONS" value="--max-semi-space-size=1"/>',
    "  <startmode>Automatic</startmode>",
    ...onFailure,
    `  <resetfailure>${FAILURE_RESET_S / 3600} hour</resetfailure>`,
    // WinSW stops the agent with Ctrl+C (SIGINT: pollers, MQTT "offline", store), then kills it.
    "  <stoptimeout>30 sec</stoptimeout>",
    "  <logpath>%BASE%\\logs</logpath>",
    '  <log mode="roll-by-size">',
    "    <sizeThreshold>10240</sizeThreshold>",
    "    <keepFiles>8</keepFiles>",
    "  </log>",
    "</service>",
    "",
  ].join("\r\n");
}

/**
 * caudal-agent-service.exe.config: WinSW 1.17 targets .NET 2.0; this lets it run on .NET 4, the
 * only framework a current Windows has without optional features (as node-windows ships it).
 */
export function winswExeConfig(): string {
  return [
    "<configuration>",
    "  <startup>",
    '    <supportedRuntime version="v2.0.50727"/>',
    '    <supportedRuntime version="v4.0"/>',
    "  </startup>",
    "</configuration>",
    "",
  ].join("\r\n");
}
