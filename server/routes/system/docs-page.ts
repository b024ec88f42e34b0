import { createRoute, z } from "@hono/zod-openapi";
import type { Router } from "../router.ts";

/**
 * Relative URLs: the page works at /docs and behind a reverse proxy that adds a path prefix.
 * Every asset comes from this server (offline sites have no CDN), and the CSP below makes the
 * browser refuse anything else.
 */
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Caudal API</title>
    <link rel="stylesheet" href="docs/assets/swagger-ui.css">
    <link rel="stylesheet" href="docs/assets/index.css">
    <link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="docs/assets/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="docs/assets/swagger-ui-bundle.js"></script>
    <script src="docs/assets/swagger-ui-standalone-preset.js"></script>
    <script src="docs/swagger-initializer.js"></script>
  </body>
</html>
`;

/** In a file of its own so the CSP needs no 'unsafe-inline' for scripts. */
const INITIALIZER = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "docs/openapi.yaml",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout",
    // The default posts the document to validator.swagger.io: no outside requests.
    validatorUrl: null,
  });
});
`;

/** Swagger UI styles itself inline and draws its logo from a data: URL; nothing leaves the origin. */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const route = createRoute({
  method: "get",
  path: "/docs",
  tags: ["System"],
  summary: "API explorer",
  description: "Swagger UI for this document; every asset is served by Caudal itself, so it works offline.",
  responses: {
    200: { description: "The explorer page", content: { "text/html": { schema: z.string() } } },
  },
});

export function mountDocsPage(router: Router): void {
  router.openapi(route, (c) => {
    c.header("Content-Security-Policy", DOCS_CSP);
    c.header("Cache-Control", "no-cache");
    return c.html(PAGE, 200);
  });
  // Relative to /docs/ the page's relative URLs would miss; send the browser to /docs.
  router.get("/docs/", (c) => c.redirect("../docs", 301));
  router.get("/docs/swagger-initializer.js", (c) => {
    c.header("Cache-Control", "no-cache");
    return c.body(INITIALIZER, 200, { "Content-Type": "text/javascript; charset=utf-8" });
  });
}
