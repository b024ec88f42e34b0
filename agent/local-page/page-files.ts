/** One file of the agent's local page as the local API serves it. */
export type LocalPageFile = { type: string; body: string };

/** The local page's files by URL path: `/` (the page) and `/assets/<name>`. */
export type LocalPageFiles = Record<string, LocalPageFile>;

let built: Promise<LocalPageFiles> | undefined;

/**
 * The local page (console/agent-page/). Run from source, it is built with esbuild on first use,
 * once per process. The single executable never runs this module: its build swaps it for the
 * files built with the agent (scripts/build/bundle-agent.ts), so the executable carries the page
 * and needs neither esbuild nor any file beside it.
 */
export function localPageFiles(): Promise<LocalPageFiles> {
  built ??= import("./page-build.ts")
    .then((m) => m.buildLocalPage())
    .catch((err: unknown) => {
      // Tried again at the next request rather than remembered.
      built = undefined;
      throw err;
    });
  return built;
}
