import { execFile } from "node:child_process";

/**
 * sd_notify(3) through systemd-notify(1): Node has no AF_UNIX datagram sockets. The unit sets
 * NotifyAccess=all because the message comes from a child process. Does nothing outside systemd.
 */
export class SystemdNotifier {
  readonly #enabled = Boolean(process.env.NOTIFY_SOCKET);
  #timer: NodeJS.Timeout | undefined;

  ready(): void {
    this.#send("--ready");
    const usec = Number(process.env.WATCHDOG_USEC);
    if (this.#enabled && Number.isFinite(usec) && usec > 0) {
      // Ping at half the watchdog interval, as sd_watchdog_enabled(3) recommends.
      this.#timer = setInterval(() => this.#send("WATCHDOG=1"), Math.max(1000, usec / 2000));
      this.#timer.unref();
    }
  }

  /**
   * Before READY=1: asks for `ms` more before systemd's start timeout (EXTEND_TIMEOUT_USEC,
   * sd_notify(3)), e.g. while enrollment waits for the WAN.
   */
  extendStartTimeout(ms: number): void {
    this.#send(`EXTEND_TIMEOUT_USEC=${Math.ceil(ms * 1000)}`);
  }

  stopping(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#send("STOPPING=1");
  }

  #send(arg: string): void {
    if (!this.#enabled) return;
    execFile("systemd-notify", [arg], () => {});
  }
}
