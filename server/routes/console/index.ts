import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { OWN_FILES_PAGE_CSP } from "../../../shared/content-security-policy.ts";
import { AppError } from "../../errors.ts";
import { errorResponseSchema } from "../../http/openapi.ts";
import { newRouter, type Router } from "../router.ts";
import type { ConsoleFile, ConsoleFiles } from "./console-files.ts";

const NOT_BUILT = "the operator console is not built: run npm run build:console";
const IMMUTABLE = "public, max-age=31536000, immutable";

const route = createRoute({
  method: "get",
  path: "/",
  tags: ["System"],
  summary: "Operator console",
  description:
    "The operator console: a single page, a client of this API and its WebSocket stream. Its files are " +
    "content-hashed under /assets/ (cached for a year); this page is revalidated on every load.",
  responses: {
    200: { description: "The console page", content: { "text/html": { schema: z.string() } } },
    304: { description: "Unchanged since the ETag given in If-None-Match" },
    503: {
      description: "The console is not built on this server (`npm run build:console`)",
      content: {
        "application/json": {
          schema: errorResponseSchema,
          example: { error: "Unavailable", message: NOT_BUILT },
        },
      },
    },
  },
});

function send(c: Context, file: ConsoleFile, cacheControl: string): Response {
  const headers: Record<string, string> = {
    ETag: file.etag,
    "Cache-Control": cacheControl,
    Vary: "Accept-Encoding",
  };
  if (c.req.header("if-none-match") === file.etag) return c.body(null, 304, headers);
  headers["Content-Type"] = file.type;
  if (file.encoding !== "identity") headers["Content-Encoding"] = file.encoding;
  return c.body(file.body as Uint8Array<ArrayBuffer>, 200, headers);
}

/** `/` and `/assets/*`: the operator console built into CONSOLE_DIR. Public: the page signs in through the API. */
export function consoleRoutes(files: ConsoleFiles): Router {
  const router = newRouter();
  router.openapi(route, (c) => {
    const index = files.index(c.req.header("accept-encoding"));
    if (!index) {
      throw new AppError("Unavailable", NOT_BUILT);
    }
    c.header("Content-Security-Policy", OWN_FILES_PAGE_CSP);
    return send(c, index, "no-cache");
  });
  router.get("/assets/:file", (c) => {
    const file = files.asset(c.req.param("file"), c.req.header("accept-encoding"));
    if (!file) throw new AppError("NotFound", `no console asset named ${c.req.param("file")}`);
    return send(c, file, IMMUTABLE);
  });
  return router;
}
