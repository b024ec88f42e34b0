import { describe, expect, it } from "vitest";
import { type PortNeed, portTakenLine } from "./port-check.ts";

const needs: PortNeed[] = [
  { variable: "PORT", host: "0.0.0.0", port: 8080 },
  { variable: "MQTT_PORT", host: "0.0.0.0", port: 1883 },
  { variable: "SIM_PORT", host: "127.0.0.1", port: 5020 },
];

describe("portTakenLine", () => {
  it("beside a running Caudal, names every port variable a second one must change, PORT and MQTT_PORT first", () => {
    const [http] = needs;
    if (!http) throw new Error("no PORT need");
    const line = portTakenLine(http, true, "http://localhost:8080", needs);
    expect(line).toContain("Caudal is already running at http://localhost:8080 (port 8080 (PORT) is in use)");
    expect(line).toContain("PORT=<port> MQTT_PORT=<port> SIM_PORT=<port> DATA_DIR=<dir> npm start");
  });

  it("beside another program, names the one variable to change", () => {
    const [, mqtt] = needs;
    if (!mqtt) throw new Error("no MQTT_PORT need");
    expect(portTakenLine(mqtt, false, "http://localhost:8080", needs)).toBe(
      "npm start: port 1883 (MQTT_PORT) is in use by another program: nothing was started or changed. Stop that program, or choose another port: MQTT_PORT=<port> npm start",
    );
  });
});
