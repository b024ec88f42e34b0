import { DEMO_ASSETS, DEMO_PROJECT, DEMO_RULES, DEMO_SEPARATOR } from "../demo/demo-field.ts";
import type { DemoSetup } from "../demo/provision.ts";
import { serverLines } from "./banner.ts";

export type DemoBannerInput = {
  /** Where a person reaches the server (http://localhost:8080). */
  base: string;
  /** The host this machine's MQTT clients use. */
  mqttHost: string;
  /** The broker's TCP port, or null when it was chosen at random (MQTT_PORT=0). */
  mqttPort: number | null;
  simPort: number;
  opcUaSimPort: number;
  agentLocalApiPort: number;
  envFile: string;
  /** Where the server's per-request lines go (REQUEST_LOG_FILE). */
  requestLogFile: string;
  /** The pinned node, which has the WebSocket client the one-liner below needs (Node 22+). */
  nodePath: string;
  setup: DemoSetup;
};

const RULE_SYMBOL = { gt: ">", gte: ">=", lt: "<", lte: "<=", eq: "=" } as const;

/**
 * What `npm start` prints once the whole system runs: where everything is, the demo login, and
 * copy-paste commands to watch the telemetry over REST, WebSocket and MQTT. The password is shown
 * only on the run that created the account; afterwards the commands read it from its file.
 */
export function demoBanner(i: DemoBannerInput): string {
  const { setup } = i;
  const ws = `${i.base.replace(/^http/, "ws")}/api/ws/telemetry?token=$TOKEN&project_id=${setup.projectId}`;
  const lines = [
    "",
    "Caudal is running: the server with its MQTT broker, one agent, and a simulated field (Modbus TCP and OPC UA).",
    ...serverLines(i.base),
    i.mqttPort === null
      ? `  MQTT           ${i.base.replace(/^http/, "ws")}/mqtt (MQTT over WebSocket; the TCP port is random)`
      : `  MQTT           mqtt://${i.mqttHost}:${i.mqttPort} and ${i.base.replace(/^http/, "ws")}/mqtt`,
    `  Agent page     http://127.0.0.1:${i.agentLocalApiPort}/ (its local API: /status, also /health, /alarms, /metrics)`,
    `  PLC simulator  Modbus TCP 127.0.0.1:${i.simPort}, unit 1, float32 holding registers 0, 2, 4, 6`,
    `                 OPC UA opc.tcp://127.0.0.1:${i.opcUaSimPort} (security None), ns=1;s=Separator.*`,
    `  Request log    ${i.requestLogFile}`,
    `  Configuration  ${i.envFile}, ${setup.agentConfigFile}`,
    "",
    `Demo project "${DEMO_PROJECT.name}" (${DEMO_PROJECT.timezone}), id ${setup.projectId}`,
    ...DEMO_ASSETS.map(
      (a) =>
        `  ${a.asset_type.padEnd(7)} ${a.name.padEnd(14)} ${setup.assetIds[a.key]}  ${a.device.tags.join(", ")}`,
    ),
    `  ${DEMO_SEPARATOR.asset_type.padEnd(7)} ${DEMO_SEPARATOR.name.padEnd(14)} ${setup.assetIds.separator}  ${DEMO_SEPARATOR.device.tags.map((t) => t.alias).join(", ")} (OPC UA)`,
    `  alert rules: ${DEMO_RULES.map((r) => `${r.variable_alias} ${RULE_SYMBOL[r.condition]} ${r.threshold} (${r.severity})`).join(", ")}`,
    "",
  ];
  if (setup.accountCreated) {
    lines.push(
      `Demo login (superadmin). The password is shown this once; it is kept in ${setup.credentialsFile} (mode 0600).`,
      `  email     ${setup.credentials.email}`,
      `  password  ${setup.credentials.password}`,
    );
  } else {
    lines.push(
      "Demo login (superadmin)",
      `  email     ${setup.credentials.email}`,
      `  password  in ${setup.credentialsFile} (mode 0600)`,
    );
  }
  lines.push(
    "",
    "Watch the telemetry (from another terminal):",
    "  1. Log in. Access tokens last 15 minutes: repeat this step when one expires.",
    `     TOKEN=$(curl -s -X POST ${i.base}/api/auth/login -H 'content-type: application/json' \\`,
    `       -d @${setup.credentialsFile} | node -pe 'JSON.parse(require("fs").readFileSync(0, "utf8")).token')`,
    "  2. The well's latest readings (REST):",
    `     curl -s -H "authorization: Bearer $TOKEN" '${i.base}/api/telemetry/${setup.assetIds.well}?limit=5'`,
    "  3. The live stream (WebSocket, one JSON message per stored reading set):",
    `     ${ws}`,
    `     e.g. ${i.nodePath} -e 'new WebSocket(process.argv[1]).onmessage = (m) => console.log(m.data)' \\`,
    `       "${ws}"`,
  );
  if (i.mqttPort !== null) {
    lines.push(
      "  4. The agent's MQTT traffic (user name: your email; password: the access token):",
      `     mosquitto_sub -h ${i.mqttHost} -p ${i.mqttPort} -u ${setup.credentials.email} -P "$TOKEN" -t 'caudal/v1/${setup.projectId}/#' -v`,
    );
  }
  lines.push("", "Press Ctrl-C to stop.", "");
  return lines.join("\n");
}
