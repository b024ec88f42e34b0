import type { ChildProcess } from "node:child_process";

/** One request to a bench child process and its reply (`{type: "<request>:ok"}` or `{type: "error"}`). */
export function call<T>(
  child: ChildProcess,
  request: { type: string } & Record<string, unknown>,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type: string; message?: string }) => {
      if (message.type === "error") {
        child.off("message", onMessage);
        reject(new Error(`bench child: ${message.message}`));
      } else if (message.type === `${request.type}:ok`) {
        child.off("message", onMessage);
        resolve(message as T);
      }
    };
    child.on("message", onMessage);
    child.send(request);
  });
}

/** Serves requests from the parent: each handler's result is sent back as `<type>:ok`. */
export function serve(handlers: Record<string, (request: Record<string, unknown>) => unknown>): void {
  process.on("message", (request: { type: string } & Record<string, unknown>) => {
    const handler = handlers[request.type];
    if (!handler) return;
    Promise.resolve()
      .then(() => handler(request))
      .then(
        (result) => process.send?.({ type: `${request.type}:ok`, ...(result as object) }),
        (err: unknown) =>
          process.send?.({ type: "error", message: err instanceof Error ? err.message : String(err) }),
      );
  });
  process.on("disconnect", () => process.exit(0));
}
