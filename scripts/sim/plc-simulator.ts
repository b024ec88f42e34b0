import { ModbusTcpServer } from "./modbus-tcp-server.ts";
import { WellModel } from "./well-model.ts";

// A demo PLC for `npm start`: Modbus TCP on SIM_PORT (default 5020) with a moving well.
const port = Number(process.env.SIM_PORT ?? 5020);
const server = new ModbusTcpServer();
const well = new WellModel(server);
well.step(0);
await server.listen(port, process.env.SIM_HOST ?? "127.0.0.1");
const timer = setInterval(() => well.step(1), 1000);
process.stdout.write(
  `${JSON.stringify({ level: "info", msg: "plc simulator listening", port: server.port })}\n`,
);

const stop = () => {
  clearInterval(timer);
  void server.close().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
