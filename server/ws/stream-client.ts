import type { Socket } from "node:net";
import { WebSocket } from "ws";
import { seesAllProjects } from "../../shared/roles.ts";
import type { SessionScope } from "../services/live/session-scope.ts";
import { FrameQueue } from "./frame-queue.ts";
import { droppedFrame } from "./frames.ts";

export type StreamLimits = {
  /** Frames a lagging client may have waiting in its own queue before the oldest are dropped. */
  maxQueuedFrames: number;
  /** The same queue's byte budget. */
  maxQueuedBytes: number;
  /** Stop writing to a socket while ws reports this much unsent data (its bufferedAmount). */
  highWaterMarkBytes: number;
};

export type StreamClientInit = {
  ws: WebSocket;
  /** The TCP socket under `ws`: corked around a batch, and its 'drain' wakes a paused client. */
  socket: Socket;
  userId: string;
  sessionId: string;
  /** Access token expiry, epoch milliseconds. */
  expiresAtMs: number;
  /** The optional project_id filter of the connection. */
  projectFilter: string | null;
  scope: SessionScope;
};

/** Which projects' events a client receives: every project, or exactly these. */
export type Interest = "all" | ReadonlySet<string>;

const NONE: ReadonlySet<string> = new Set();
/** Frames are UTF-8 JSON sent from shared Buffers: text frames (RFC 6455 §5.6, opcode 0x1). */
const TEXT = { binary: false } as const;

/**
 * One connected stream client. Frames wait in a bounded queue and are written in batches (one
 * corked write per flush) only while the socket's unsent data stays under the high
 * water mark, so a slow reader costs at most `highWaterMarkBytes` + the queue's budget of server
 * memory; beyond that the oldest frames are dropped and the client is told how many.
 */
export class StreamClient {
  readonly ws: WebSocket;
  readonly userId: string;
  readonly sessionId: string;
  readonly expiresAtMs: number;
  readonly projectFilter: string | null;
  readonly connectedAt = Date.now();
  scope: SessionScope;
  /** Answered the last ping (RFC 6455 §5.5.2/§5.5.3 keep-alive). */
  alive = true;
  /** Already on the hub's list of clients for the next flush. */
  pending = false;
  sent = 0;
  droppedTotal = 0;
  readonly #socket: Socket;
  readonly #queue: FrameQueue;
  readonly #limits: StreamLimits;
  #awaitingDrain = false;
  #closed = false;

  constructor(init: StreamClientInit, limits: StreamLimits) {
    this.ws = init.ws;
    this.#socket = init.socket;
    this.userId = init.userId;
    this.sessionId = init.sessionId;
    this.expiresAtMs = init.expiresAtMs;
    this.projectFilter = init.projectFilter;
    this.scope = init.scope;
    this.#queue = new FrameQueue(limits.maxQueuedFrames, limits.maxQueuedBytes);
    // Our mark must not sit below the socket's, or 'drain' (which needs a write to have been
    // refused) might never come for a paused client.
    this.#limits = {
      ...limits,
      highWaterMarkBytes: Math.max(limits.highWaterMarkBytes, init.socket.writableHighWaterMark),
    };
  }

  get closed(): boolean {
    return this.#closed;
  }

  get queuedFrames(): number {
    return this.#queue.length;
  }

  get queuedBytes(): number {
    return this.#queue.bytes;
  }

  /** Events dropped for this client so far, told or not yet told. */
  get dropped(): number {
    return this.droppedTotal + this.#queue.dropped;
  }

  /** The projects this client may receive now: its filter, narrowed by what its user may see. */
  interest(): Interest {
    const visible = (projectId: string) =>
      seesAllProjects(this.scope.role) || this.scope.projectIds.has(projectId);
    if (this.projectFilter !== null) {
      return visible(this.projectFilter) ? new Set([this.projectFilter]) : NONE;
    }
    return seesAllProjects(this.scope.role) ? "all" : this.scope.projectIds;
  }

  enqueue(frame: Buffer): void {
    if (this.#closed) return;
    this.#queue.push(frame);
  }

  /** Writes queued frames until the socket is backed up; then waits for its 'drain'. */
  flush(): void {
    if (this.#closed || this.ws.readyState !== WebSocket.OPEN) return;
    const hwm = this.#limits.highWaterMarkBytes;
    this.#socket.cork();
    try {
      while (this.ws.bufferedAmount < hwm) {
        const dropped = this.#queue.takeDropped();
        if (dropped > 0) {
          this.droppedTotal += dropped;
          this.ws.send(droppedFrame(dropped), TEXT);
          continue;
        }
        const frame = this.#queue.shift();
        if (!frame) break;
        this.ws.send(frame, TEXT);
        this.sent++;
      }
    } finally {
      // Uncorking hands the whole batch to the kernel in one writev.
      this.#socket.uncork();
    }
    if ((this.#queue.length > 0 || this.#queue.dropped > 0) && !this.#awaitingDrain) {
      this.#awaitingDrain = true;
      this.#socket.once("drain", this.#onDrain);
    }
  }

  /** Closes with `code` (RFC 6455 §7.4.2: 4000–4999 are ours) and forgets queued frames. */
  close(code: number, reason: string): void {
    if (!this.#release()) return;
    this.ws.close(code, reason);
  }

  /** For a peer that stopped answering pings: no closing handshake to wait for. */
  terminate(): void {
    if (!this.#release()) return;
    this.ws.terminate();
  }

  /** Marks the client closed after the peer went away. */
  release(): void {
    this.#release();
  }

  #release(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    this.#queue.clear();
    this.#socket.off("drain", this.#onDrain);
    return true;
  }

  readonly #onDrain = (): void => {
    this.#awaitingDrain = false;
    this.flush();
  };
}
