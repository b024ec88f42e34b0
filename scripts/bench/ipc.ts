import type { ChildProcess } from "node:child_process";

/** One request to a bench child process and its reply (`{type: "<request>:ok"}` or `{type: "error"}`). */
export function ask<T>(child: ChildProcess, request: { type: string } & Record<string, unknown>): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type: string; message?: string }) => {
      if (message.type !== "error" && message.type !== `${request.type}:ok`) return;
      child.off("message", onMessage);
      child.off("exit", onExit);
      if (message.type === "error") reject(new Error(`bench child: ${message.message}`));
      else resolve(message as T);
    };
    const onExit = (code: number | null) => {
      child.off("message", onMessage);
      reject(new Error(`bench child exited with ${code} during ${request.type}`));
    };
    child.on("message", onMessage);
    child.once("exit", onExit);
    child.send(request);
  });
}

/** Serves the parent's requests: each handler's result goes back as `<type>:ok`. */
export function answer(handlers: Record<string, (request: Record<string, unknown>) => unknown>): void {
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
