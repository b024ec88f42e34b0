import { Duplex } from "node:stream";
import { type FromWorker, joined, type Peer } from "./protocol.ts";

type Send = (message: FromWorker, transfer?: ArrayBuffer[]) => void;

/**
 * A client connection as seen from an HTTP worker thread: the main thread owns the TCP socket and
 * relays its bytes here; what the worker's HTTP server writes goes back the same way. Node's HTTP
 * server takes any Duplex as a connection (the 'connection' event); this one also answers the
 * socket calls it makes (setTimeout, setNoDelay, destroySoon) and reports the peer's addresses.
 */
export class RelayedSocket extends Duplex {
  readonly id: number;
  readonly remoteAddress: string | undefined;
  readonly remotePort: number | undefined;
  readonly remoteFamily: string | undefined;
  readonly localAddress: string | undefined;
  readonly localPort: number | undefined;
  /** Bytes received from the client so far (see the `handback` message). */
  received = 0;
  readonly #send: Send;
  #readPaused = false;
  /** The main thread's socket is congested: the callback of the last write waits for `go`. */
  #congested = false;
  #pendingWrite: (() => void) | undefined;
  /** The client's socket is gone: nothing more is sent to the main thread. */
  #gone = false;
  #timeoutMs = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(id: number, peer: Peer, send: Send) {
    super({ allowHalfOpen: true });
    this.id = id;
    this.remoteAddress = peer.remoteAddress;
    this.remotePort = peer.remotePort;
    this.remoteFamily = peer.remoteFamily;
    this.localAddress = peer.localAddress;
    this.localPort = peer.localPort;
    this.#send = send;
  }

  /** Bytes from the client. */
  deliver(chunk: Uint8Array): void {
    this.received += chunk.byteLength;
    if (this.destroyed) return;
    this.#touch();
    if (!this.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)) && !this.#readPaused) {
      this.#readPaused = true;
      this.#send({ t: "pause", c: this.id });
    }
  }

  /** The client ended its side. */
  deliverEnd(): void {
    if (!this.destroyed) this.push(null);
  }

  /** The client's socket is gone, or the main thread took it back: drop this side silently. */
  forget(): void {
    this.#gone = true;
    this.destroy();
  }

  congested(on: boolean): void {
    this.#congested = on;
    if (!on) {
      const resume = this.#pendingWrite;
      this.#pendingWrite = undefined;
      resume?.();
    }
  }

  override _read(): void {
    if (this.#readPaused) {
      this.#readPaused = false;
      if (!this.#gone) this.#send({ t: "resume", c: this.id });
    }
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#writeOut([chunk], callback);
  }

  override _writev(
    chunks: { chunk: Buffer; encoding: BufferEncoding }[],
    callback: (error?: Error | null) => void,
  ): void {
    this.#writeOut(
      chunks.map((c) => c.chunk),
      callback,
    );
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.#gone) this.#send({ t: "end", c: this.id });
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.#timer);
    if (!this.#gone) {
      this.#gone = true;
      this.#send({ t: "destroy", c: this.id });
    }
    const resume = this.#pendingWrite;
    this.#pendingWrite = undefined;
    resume?.();
    callback(error);
  }

  /** net.Socket's inactivity timeout: 'timeout' once nothing was read or written for `ms`. */
  setTimeout(ms: number, onTimeout?: () => void): this {
    this.#timeoutMs = ms;
    if (onTimeout) this.once("timeout", onTimeout);
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#touch();
    return this;
  }

  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  /** What net.Socket does: end, then destroy once the end is written. */
  destroySoon(): void {
    if (this.writable) this.end();
    if (this.writableFinished) this.destroy();
    else this.once("finish", () => this.destroy());
  }

  #writeOut(chunks: readonly Uint8Array[], callback: (error?: Error | null) => void): void {
    this.#touch();
    if (this.#gone) {
      callback();
      return;
    }
    const d = joined(chunks);
    this.#send({ t: "data", c: this.id, d }, [d.buffer as ArrayBuffer]);
    if (this.#congested) this.#pendingWrite = () => callback();
    else callback();
  }

  #touch(): void {
    if (this.#timeoutMs <= 0 || this.destroyed) return;
    if (this.#timer) {
      this.#timer.refresh();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.emit("timeout");
    }, this.#timeoutMs);
    this.#timer.unref();
  }
}
