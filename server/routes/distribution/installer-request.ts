import type { Context } from "hono";
import type { AppEnv } from "../../http/env.ts";
import type { InstallerRequest } from "../../services/agents/public-urls.ts";
import { clientInfo } from "../client-info.ts";

/** Headers a proxy adds: their presence says the client is not the peer (their values are not trusted). */
const PROXY_HEADERS = ["forwarded", "x-forwarded-for", "x-forwarded-host", "x-real-ip"];

/** Where an installer request came from, for installerServerUrl. */
export function installerRequest(c: Context<AppEnv>): InstallerRequest {
  return {
    url: c.req.url,
    peer: clientInfo(c).ip,
    proxied: PROXY_HEADERS.some((name) => c.req.header(name) !== undefined),
  };
}
