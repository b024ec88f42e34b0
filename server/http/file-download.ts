import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { Context } from "hono";
import type { OpenedFile } from "../services/distribution/opened-file.ts";
import { ifNoneMatchHits, ifRangeHolds, parseByteRange } from "./byte-range.ts";
import { HttpError } from "./errors.ts";

/** RFC 9530 §3: `sha-256=:<base64 of the digest>:` of the whole representation, on 200 and 206 alike. */
export function reprDigest(sha256Hex: string): string {
  return `sha-256=:${Buffer.from(sha256Hex, "hex").toString("base64")}:`;
}

function stream(file: OpenedFile, start: number, end: number): ReadableStream<Uint8Array> {
  // autoClose: the handle is closed when the stream ends, fails, or the client goes away
  // (@hono/node-server cancels the reader, which destroys the file stream).
  const nodeStream = file.handle.createReadStream({ start, end, autoClose: true });
  return Readable.toWeb(nodeStream) as WebReadableStream<Uint8Array> as ReadableStream<Uint8Array>;
}

/**
 * Answers GET or HEAD for a file, streamed from disk in 64 KiB chunks (never read into memory):
 * ETag (the quoted SHA-256) with If-None-Match (304), a single byte Range (206; 416 when it starts
 * past the end) with If-Range, Repr-Digest, Content-Length and Content-Disposition.
 */
export async function fileDownload(c: Context, file: OpenedFile): Promise<Response> {
  const etag = `"${file.sha256Hex}"`;
  const common = {
    ETag: etag,
    "Accept-Ranges": "bytes",
    // Private: the download needs credentials. no-cache: a rebuild replaces it under the same URL.
    "Cache-Control": "private, no-cache",
  };
  const method = c.req.method;
  if (ifNoneMatchHits(c.req.header("if-none-match"), etag)) {
    await file.handle.close();
    return c.body(null, 304, common);
  }
  const requested = ifRangeHolds(c.req.header("if-range"), etag)
    ? parseByteRange(c.req.header("range"), file.bytes)
    : ({ kind: "full" } as const);
  if (requested.kind === "unsatisfiable") {
    await file.handle.close();
    throw new HttpError(
      "RangeNotSatisfiable",
      `the range ${c.req.header("range")} is outside the file's ${file.bytes} bytes`,
      { ...common, "Content-Range": `bytes */${file.bytes}` },
    );
  }
  const { start, end } = requested.kind === "partial" ? requested.range : { start: 0, end: file.bytes - 1 };
  const headers: Record<string, string> = {
    ...common,
    "Content-Type": "application/octet-stream",
    "Content-Length": String(end - start + 1),
    "Content-Disposition": `attachment; filename="${file.fileName}"`,
    "Repr-Digest": reprDigest(file.sha256Hex),
  };
  const status = requested.kind === "partial" ? 206 : 200;
  if (status === 206) headers["Content-Range"] = `bytes ${start}-${end}/${file.bytes}`;
  if (method === "HEAD") {
    await file.handle.close();
    return c.body(null, status, headers);
  }
  return c.body(stream(file, start, end), status, headers);
}
