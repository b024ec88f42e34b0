import type { Session } from "./session.ts";
import type { StreamMessage } from "./types.ts";

export type StreamStatus = "connecting" | "open" | "closed";

type MessageListener = (message: StreamMessage) => void;
type StatusListener = (status: StreamStatus) => void;

/** Close codes of GET /api/ws/telemetry (see its description in the API document). */
const TOKEN_ENDED = 4401;
const FORBIDDEN = 4403;

/**
 * The live telemetry and alarm stream of every project the user may see. Browsers cannot set
 * headers on a WebSocket handshake, so the access token travels as the `token` query parameter
 * (spec §5.3): the only place a token is ever put in a URL. Reconnects with backoff; when the
 * token ends (4401) it is renewed first.
 */
export class LiveStream {
  readonly #session: Session;
  #ws: WebSocket | null = null;
  #status: StreamStatus = "closed";
  #retryMs = 1000;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running = false;
  readonly #messageListeners = new Set<MessageListener>();
  readonly #statusListeners = new Set<StatusListener>();

  constructor(session: Session) {
    this.#session = session;
  }

  get status(): StreamStatus {
    return this.#status;
  }

  onMessage(listener: MessageListener): () => void {
    this.#messageListeners.add(listener);
    return () => this.#messageListeners.delete(listener);
  }

  onStatus(listener: StatusListener): () => void {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#connect();
  }

  stop(): void {
    this.#running = false;
    clearTimeout(this.#timer);
    const ws = this.#ws;
    this.#ws = null;
    ws?.close(1000);
    this.#setStatus("closed");
  }

  #connect(): void {
    const token = this.#session.state?.token;
    if (!this.#running || !token) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(
      `${scheme}://${location.host}/api/ws/telemetry?token=${encodeURIComponent(token)}`,
    );
    this.#ws = ws;
    this.#setStatus("connecting");
    ws.onopen = () => {
      this.#retryMs = 1000;
      this.#setStatus("open");
    };
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") return;
      const message = JSON.parse(event.data) as StreamMessage;
      for (const listener of this.#messageListeners) listener(message);
    };
    ws.onclose = (event) => {
      if (this.#ws !== ws) return;
      this.#ws = null;
      this.#setStatus("closed");
      if (!this.#running || event.code === FORBIDDEN) return;
      if (event.code === TOKEN_ENDED) {
        void this.#session.refresh().then((ok) => ok && this.#connect());
        return;
      }
      this.#timer = setTimeout(() => this.#connect(), this.#retryMs);
      this.#retryMs = Math.min(this.#retryMs * 2, 30_000);
    };
  }

  #setStatus(status: StreamStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    for (const listener of this.#statusListeners) listener(status);
  }
}
