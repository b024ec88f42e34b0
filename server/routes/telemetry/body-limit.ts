import { bodyLimit } from "hono/body-limit";
import { AppError } from "../../http/errors.ts";
import { MAX_BODY_BYTES } from "../../services/telemetry/limits.ts";

/** Refuses oversized bodies (413) before they are read into memory and parsed. */
export const telemetryBodyLimit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new AppError(
      "PayloadTooLarge",
      `the request body must be at most ${MAX_BODY_BYTES / 1024 / 1024} MiB`,
    );
  },
});
