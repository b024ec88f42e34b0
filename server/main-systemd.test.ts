import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect } from "vitest";
import { freePort, portAccepts } from "../scripts/testing/free-port.ts";
import { NotifySocket } from "../scripts/testing/notify-socket.ts";
import { systemdToolsMissing } from "../scripts/testing/peers.ts";
import { requirePeer } from "../scripts/testing/require-peer.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));
const systemd = requirePeer("systemd", systemdToolsMissing);

// systemd/caudal-server.service is Type=notify with WatchdogSec: systemd waits for READY=1 before
// starting what comes after the server, and restarts it when the WATCHDOG=1 pings stop.
systemd.describe("under systemd (NOTIFY_SOCKET) the server speaks sd_notify", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "caudal-main-systemd-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  systemd.it(
    "READY=1 once both ports listen, WATCHDOG=1 pings, STOPPING=1 on SIGTERM, then exit 0",
    async () => {
      const socket = await NotifySocket.start();
      const port = await freePort();
      const mqttPort = await freePort();
      const child = spawn(process.execPath, [MAIN], {
        env: {
          PATH: process.env.PATH ?? "",
          PORT: String(port),
          MQTT_PORT: String(mqttPort),
          HOST: "127.0.0.1",
          DATA_DIR: dataDir,
          LOG_LEVEL: "silent",
          NODE_ENV: "test",
          TOTP_SECRET_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
          NOTIFY_SOCKET: socket.path,
          WATCHDOG_USEC: "2000000",
        },
        stdio: ["ignore", "ignore", "inherit"],
      });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      try {
        await socket.waitFor("READY=1", 20_000);
        // Ready means serving: no probe loop needed once READY=1 has arrived.
        expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
        expect(await portAccepts(mqttPort)).toBe(true);
        await socket.waitFor("WATCHDOG=1", 5_000);
        child.kill("SIGTERM");
        await socket.waitFor("STOPPING=1", 5_000);
        expect(await exited).toBe(0);
        expect(socket.messages[0]).toBe("READY=1");
      } finally {
        child.kill("SIGKILL");
        socket.stop();
      }
    },
  );
});
