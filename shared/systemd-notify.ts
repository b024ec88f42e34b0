import { execFile } from "node:child_process";

/**
 * sd_notify(3) through systemd-notify(1), for both programs: Node has no AF_UNIX datagram
 * sockets. The units set NotifyAccess=all because the message comes from a child process;
 * systemd-notify waits until the manager has read each message (BARRIER=1), so it is still
 * attributed to the unit after the child exits. Does nothing outside systemd (no NOTIFY_SOCKET).
 */
export class SystemdNotifier {
  readonly #env: NodeJS.ProcessEnv;
  #timer: NodeJS.Timeout | undefined;

  /** `env` holds systemd's NOTIFY_SOCKET and WATCHDOG_USEC (the process environment by default). */
  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.#env = env;
  }

  /** READY=1, then WATCHDOG=1 every WATCHDOG_USEC/2 while the event loop keeps turning. */
  ready(): void {
    this.#send("--ready");
    const usec = Number(this.#env.WATCHDOG_USEC);
    if (this.#enabled() && Number.isFinite(usec) && usec > 0) {
      // Ping at half the watchdog interval, as sd_watchdog_enabled(3) recommends.
      this.#timer = setInterval(() => this.#send("WATCHDOG=1"), Math.max(1000, usec / 2000));
      this.#timer.unref();
    }
  }

  /**
   * Before READY=1: asks for `ms` more before systemd's start timeout (EXTEND_TIMEOUT_USEC,
   * sd_notify(3)), e.g. while the agent's enrollment waits for the WAN.
   */
  extendStartTimeout(ms: number): void {
    this.#send(`EXTEND_TIMEOUT_USEC=${Math.ceil(ms * 1000)}`);
  }

  stopping(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#send("STOPPING=1");
  }

  #enabled(): boolean {
    return Boolean(this.#env.NOTIFY_SOCKET);
  }

  #send(arg: string): void {
    if (!this.#enabled()) return;
    execFile("systemd-notify", [arg], { env: this.#env }, () => {});
  }
}
