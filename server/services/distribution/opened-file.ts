import type { FileHandle } from "node:fs/promises";

/** A file opened for one download; whoever sends it closes it (http/file-download.ts, once the stream ends). */
export type OpenedFile = {
  handle: FileHandle;
  bytes: number;
  sha256Hex: string;
  /** The name a browser or `curl -OJ` saves it under. */
  fileName: string;
};
