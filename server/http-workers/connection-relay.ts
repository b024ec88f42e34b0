import type { Socket } from "node:net";
import { exactCopy, type FromWorker, type Peer, type ToWorker } from "./protocol.ts";

type Send = (message: ToWorker, transfer?: ArrayBuffer[]) => void;
type Part = Extract<FromWorker, { t: "data" | "end" | "destroy" | "pause" | "resume" | "handback" }>;

export function peerOf(socket: Socket): Peer {
  return {
    remoteAddress: socket.remoteAddress,
    remotePort: socket.remotePort,
    remoteFamily: socket.remoteFamily,
    localAddress: socket.localAddress,
    localPort: socket.localPort,
  };
}

/**
 * On the main thread: one client connection served by a worker thread. The main thread keeps the
 * TCP socket (sockets cannot move between threads) and relays its bytes both ways; flow control
 * follows the slower side (`pause`/`resume` from the worker, `wait`/`go` to it).
 */
export class ConnectionRelay {
  readonly id: number;
  readonly socket: Socket;
  readonly #send: Send;
  readonly #onGone: (relay: ConnectionRelay) => void;
  /** Bytes relayed to the worker so far (see the `handback` message). */
  #sent = 0;
  #waiting = false;
  #done = false;

  constructor(id: number, socket: Socket, send: Send, onGone: (relay: ConnectionRelay) => void) {
    this.id = id;
    this.socket = socket;
    this.#send = send;
    this.#onGone = onGone;
  }

  /** Starts relaying, with the bytes the front door already read. */
  start(head: Buffer): void {
    const { socket } = this;
    this.#send({ t: "open", c: this.id, peer: peerOf(socket) });
    this.#relay(head);
    socket.on("data", this.#onData);
    socket.on("end", this.#onEnd);
    socket.on("drain", this.#onDrain);
    socket.on("close", this.#onClose);
    socket.on("error", this.#onError);
  }

  /** Ends the relay: the socket is destroyed (a worker exited, or the server stops). */
  destroy(): void {
    this.socket.destroy();
  }

  /**
   * Stops relaying and returns the socket to the caller (the main thread's HTTP server takes it),
   * or destroys it when bytes relayed to the worker after `received` would be lost.
   */
  takeBack(received: number): Socket | undefined {
    this.#detach();
    if (received !== this.#sent) {
      this.socket.destroy();
      return undefined;
    }
    return this.socket;
  }

  receive(message: Part): void {
    const { socket } = this;
    switch (message.t) {
      case "data":
        if (!socket.write(message.d) && !this.#waiting) {
          this.#waiting = true;
          this.#send({ t: "wait", c: this.id });
        }
        return;
      case "end":
        socket.end();
        return;
      case "destroy":
        this.#detach();
        socket.destroy();
        return;
      case "pause":
        socket.pause();
        return;
      case "resume":
        socket.resume();
        return;
      case "handback":
        // Handled by the pool, which owns the main thread's HTTP server.
        return;
    }
  }

  #relay(chunk: Buffer): void {
    if (chunk.length === 0) return;
    const d = exactCopy(chunk);
    this.#sent += d.byteLength;
    this.#send({ t: "data", c: this.id, d }, [d.buffer as ArrayBuffer]);
  }

  #detach(): void {
    if (this.#done) return;
    this.#done = true;
    const { socket } = this;
    socket.off("data", this.#onData);
    socket.off("end", this.#onEnd);
    socket.off("drain", this.#onDrain);
    socket.off("close", this.#onClose);
    socket.off("error", this.#onError);
    this.#onGone(this);
  }

  readonly #onData = (chunk: Buffer) => this.#relay(chunk);
  readonly #onEnd = () => this.#send({ t: "end", c: this.id });
  readonly #onDrain = () => {
    if (!this.#waiting) return;
    this.#waiting = false;
    this.#send({ t: "go", c: this.id });
  };
  readonly #onClose = () => {
    this.#detach();
    this.#send({ t: "gone", c: this.id });
  };
  // A reset is told by 'close', which follows.
  readonly #onError = () => undefined;
}
