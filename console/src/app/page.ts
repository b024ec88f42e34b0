import type { Permission } from "../../../shared/permissions.ts";
import type { ApiClient } from "../api/api-client.ts";
import type { LiveStream } from "../api/live-stream.ts";
import type { Session } from "../api/session.ts";
import type { Formats } from "../i18n/format.ts";
import type { I18n, MessageKey } from "../i18n/i18n.ts";
import type { ProjectDirectory } from "./projects.ts";

/** What every page gets: the API, the live stream, translations and formats, navigation. */
export type PageContext = {
  api: ApiClient;
  session: Session;
  stream: LiveStream;
  i18n: I18n;
  formats: Formats;
  projects: ProjectDirectory;
  /** Whether the signed-in role holds `permission` (the grants the API enforces, shared/permissions.ts). */
  can(permission: Permission): boolean;
  navigate(path: string): void;
};

/** The matched route: `:name` segments of the path, and the query after `?` in the hash. */
export type RouteParams = { path: Record<string, string>; query: URLSearchParams };

/** Called when the page is left (or rendered anew after a language change): stop timers and listeners. */
export type Cleanup = () => void;

/**
 * One page of the console. To add one: a module under pages/ exporting a PageDef, an entry in
 * app/pages.ts, and its strings in both i18n catalogs.
 */
export type PageDef = {
  id: string;
  /** Hash path, e.g. "/projects/:projectId"; `:name` segments become params.path.name. */
  path: string;
  titleKey: MessageKey;
  /** Shown in the navigation bar under this label; pages reached from others leave it out. */
  nav?: { labelKey: MessageKey; href?: string };
  /** A tab of a section (app/section-tabs.ts): the id of the page whose navigation entry stands for it. */
  navOf?: string;
  /** The role must hold every one of these (the API's own grants). */
  requires: readonly Permission[];
  /**
   * The page redraws itself when the language changes (ctx.i18n.onChange) instead of being
   * rendered anew: for a page holding what cannot be asked for again, such as a two-factor secret
   * being set up or recovery codes shown once.
   */
  redrawsOnLanguageChange?: true;
  render(host: HTMLElement, ctx: PageContext, params: RouteParams): Cleanup | undefined;
};
