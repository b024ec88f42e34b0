import { afterEach, beforeEach, expect } from "vitest";
import { NotifySocket } from "../scripts/testing/notify-socket.ts";
import { systemdToolsMissing } from "../scripts/testing/peers.ts";
import { requirePeer } from "../scripts/testing/require-peer.ts";
import { SystemdNotifier } from "./systemd-notify.ts";

const systemd = requirePeer("systemd", systemdToolsMissing);

systemd.describe("SystemdNotifier through the real systemd-notify", () => {
  let socket: NotifySocket;
  let notifier: SystemdNotifier | undefined;
  beforeEach(async () => {
    socket = await NotifySocket.start();
  });
  afterEach(() => {
    notifier?.stopping();
    socket.stop();
  });

  const env = (extra: Record<string, string>) => ({ PATH: process.env.PATH ?? "", ...extra });

  systemd.it(
    "sends READY=1, pings WATCHDOG=1 at half of WATCHDOG_USEC, and STOPPING=1 ends the pings",
    async () => {
      notifier = new SystemdNotifier(env({ NOTIFY_SOCKET: socket.path, WATCHDOG_USEC: "2000000" }));
      const started = Date.now();
      notifier.ready();
      await socket.waitFor("READY=1", 5_000);
      await socket.waitFor("WATCHDOG=1", 5_000, 2);
      // Two pings at 1 s each: not before 2 s, and well before the 2 s watchdog would fire twice.
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
      expect(Date.now() - started).toBeLessThan(4_000);
      notifier.stopping();
      await socket.waitFor("STOPPING=1", 5_000);
      const pings = socket.count("WATCHDOG=1");
      await new Promise((r) => setTimeout(r, 1_500));
      expect(socket.count("WATCHDOG=1")).toBe(pings);
      expect(socket.messages[0]).toBe("READY=1");
    },
  );

  systemd.it("sends no pings when the unit has no WatchdogSec", async () => {
    notifier = new SystemdNotifier(env({ NOTIFY_SOCKET: socket.path }));
    notifier.ready();
    await socket.waitFor("READY=1", 5_000);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(socket.messages).toEqual(["READY=1"]);
  });

  systemd.it("sends nothing outside systemd (no NOTIFY_SOCKET)", async () => {
    notifier = new SystemdNotifier(env({ WATCHDOG_USEC: "2000000" }));
    notifier.ready();
    notifier.stopping();
    // The control: the same socket does receive from a notifier that has NOTIFY_SOCKET.
    new SystemdNotifier(env({ NOTIFY_SOCKET: socket.path })).stopping();
    await socket.waitFor("STOPPING=1", 5_000);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(socket.messages).toEqual(["STOPPING=1"]);
  });
});
