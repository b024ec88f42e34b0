import { textLogLine } from "../../shared/text-log.ts";
import { ModbusTcpServer } from "./modbus-tcp-server.ts";
import { OpcUaSeparator } from "./opcua-separator.ts";
import { WellModel } from "./well-model.ts";

// The demo PLCs for `npm start`: a producing well on Modbus TCP (SIM_PORT, default 5020) and a
// separator on OPC UA (OPCUA_SIM_PORT, default 4840), both on 127.0.0.1 and moving every second.
const port = Number(process.env.SIM_PORT ?? 5020);
const opcUaPort = Number(process.env.OPCUA_SIM_PORT ?? 4840);
const host = process.env.SIM_HOST ?? "127.0.0.1";
const server = new ModbusTcpServer();
const well = new WellModel(server);
const separator = new OpcUaSeparator();
well.step(0);
await server.listen(port, host);
await separator.start(opcUaPort);
const timer = setInterval(() => {
  well.step(1);
  separator.step(1);
}, 1000);
// Plain lines, as the server's and the agent's under `npm start`.
const say = (msg: string) => process.stdout.write(textLogLine(new Date(), "info", msg));
say(`the well's PLC is listening: Modbus TCP ${host}:${server.port}`);
say(`the separator is listening: OPC UA ${separator.endpoint}`);

const stop = () => {
  clearInterval(timer);
  void Promise.all([server.close(), separator.stop()]).then(() => {
    separator.remove();
    process.exit(0);
  });
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
process.on("SIGHUP", stop);
