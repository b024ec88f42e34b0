import { AppError, ERROR_CODES, type ErrorCodeName } from "../errors.ts";
import { HttpError } from "../http/errors.ts";
import type { ColumnsWriter, IngestWriter } from "../routes/telemetry/ingest-writer.ts";
import type { WriteResult } from "../store/ports/telemetry-store.ts";
import { toColumns } from "./payload-columns.ts";
import type { FromWorker, RefusalData, ToWorker } from "./protocol.ts";

type Settled = Extract<ToWorker, { t: "written" | "refused" | "failed" }>;

const isErrorCode = (code: string): code is ErrorCodeName =>
  (ERROR_CODES as readonly string[]).includes(code);

/** The main thread's refusal, as the AppError it was, so the worker's error handler answers it alike. */
function appErrorOf(data: RefusalData): Error {
  if (!isErrorCode(data.code)) return new Error(data.message);
  if (Object.keys(data.headers).length > 0) return new HttpError(data.code, data.message, data.headers);
  return new AppError(data.code, data.message, {
    extra: data.extra,
    retryAfterSeconds: data.retryAfterSeconds,
  });
}

/**
 * The ingest routes' writers in an HTTP worker thread: the validated payloads and the caller go to
 * the main thread, which runs the ingest service (its checks, then the group commit) and answers
 * with what was stored, or with the AppError the route would have thrown there.
 */
export class RemoteIngest {
  readonly #send: (message: FromWorker, transfer?: ArrayBuffer[]) => void;
  readonly #pending = new Map<number, { resolve(result: WriteResult): void; reject(error: Error): void }>();
  #next = 1;

  constructor(send: (message: FromWorker, transfer?: ArrayBuffer[]) => void) {
    this.#send = send;
  }

  /** Columns the byte parser read go as they are; their buffer is transferred, not copied. */
  readonly writeColumns: ColumnsWriter = (auth, columns, shape) =>
    new Promise<WriteResult>((resolve, reject) => {
      const id = this.#next++;
      this.#pending.set(id, { resolve, reject });
      this.#send({ t: "write", id, auth, columns, shape }, [columns.buffer]);
    });

  readonly write: IngestWriter = (auth, payloads, shape) =>
    this.writeColumns(auth, toColumns(payloads), shape);

  settle(message: Settled): void {
    const call = this.#pending.get(message.id);
    if (!call) return;
    this.#pending.delete(message.id);
    if (message.t === "written") call.resolve(message.result);
    else if (message.t === "refused") call.reject(appErrorOf(message.error));
    else call.reject(new Error(message.message));
  }
}
