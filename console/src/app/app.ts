import { html, render } from "lit/html.js";
import type { Permission } from "../../../shared/permissions.ts";
import { roleCan } from "../../../shared/permissions.ts";
import { ApiClient } from "../api/api-client.ts";
import { LiveStream } from "../api/live-stream.ts";
import { type EndReason, Session } from "../api/session.ts";
import { Formats } from "../i18n/format.ts";
import { I18n, LANGUAGES, type Language } from "../i18n/i18n.ts";
import { AlarmBanner } from "./alarm-banner.ts";
import type { Cleanup, PageContext, PageDef } from "./page.ts";
import { PAGES, SIGN_IN } from "./pages.ts";
import { ProjectDirectory } from "./projects.ts";
import { matchPath, splitHash } from "./route-match.ts";

/**
 * The shell: top bar with the role's navigation, the language switch and sign-out, the alarm
 * banner, and the current page in <main>. Routes live in the URL's hash (#/alarms), so the
 * server serves one page at `/` and a reload keeps the place.
 */
export class ConsoleApp {
  readonly #root: HTMLElement;
  readonly #session = new Session();
  readonly #api = new ApiClient(this.#session);
  readonly #stream = new LiveStream(this.#session);
  readonly #i18n = new I18n(navigator.languages, localStorage);
  readonly #projects = new ProjectDirectory(this.#api);
  readonly #banner = new AlarmBanner(() => this.#renderShell());
  #formats = new Formats(this.#i18n.locale);
  #cleanup: Cleanup | undefined;
  #current: PageDef | null = null;
  #ended: EndReason | null = null;
  #returnTo = "/";

  constructor(root: HTMLElement) {
    this.#root = root;
  }

  async start(): Promise<void> {
    this.#i18n.onChange(() => {
      this.#formats = new Formats(this.#i18n.locale);
      if (this.#current?.redrawsOnLanguageChange) this.#relabel(this.#current);
      else this.#route();
    });
    this.#session.onChange((state, reason) => {
      if (state) {
        if (roleCan(state.role, "telemetry:read")) this.#stream.start();
        // Signed in from the sign-in page: go where the user was heading.
        if (this.#current === SIGN_IN) this.#route();
        return;
      }
      this.#stream.stop();
      this.#projects.forget();
      this.#banner.dismiss();
      this.#ended = reason;
      this.#route();
    });
    this.#stream.onMessage((m) => {
      if (m.type === "alarm" && m.event === "raised") this.#banner.raised(m.alarm);
    });
    this.#stream.onStatus(() => this.#renderShell());
    window.addEventListener("hashchange", () => this.#route());
    await this.#session.refresh();
    this.#route();
  }

  #context(): PageContext {
    const formats = () => this.#formats;
    return {
      api: this.#api,
      session: this.#session,
      stream: this.#stream,
      i18n: this.#i18n,
      // Read when used: a page that outlives a language change formats in the new locale.
      get formats() {
        return formats();
      },
      projects: this.#projects,
      can: (permission: Permission) => {
        const role = this.#session.state?.role;
        return role !== undefined && roleCan(role, permission);
      },
      navigate: (path: string) => {
        location.hash = `#${path}`;
      },
    };
  }

  #allowed(page: PageDef): boolean {
    const role = this.#session.state?.role;
    return role !== undefined && page.requires.every((p) => roleCan(role, p));
  }

  /** The first page of the navigation the role may use: overview for most, compliance for anh_reader. */
  #home(): string | null {
    const page = PAGES.find((p) => p.nav && this.#allowed(p));
    return page ? (page.nav?.href ?? page.path) : null;
  }

  #route(): void {
    const { path, query } = splitHash(location.hash);
    this.#cleanup?.();
    this.#cleanup = undefined;
    document.documentElement.lang = this.#i18n.language;
    if (!this.#session.state) {
      if (path !== SIGN_IN.path) this.#returnTo = `${path}${query.size ? `?${query}` : ""}`;
      this.#show(SIGN_IN, {
        path: {},
        query: new URLSearchParams(this.#ended ? { ended: this.#ended } : {}),
      });
      return;
    }
    if (path === SIGN_IN.path || path === "/") {
      const target = path === SIGN_IN.path ? this.#returnTo : "/";
      this.#returnTo = "/";
      const home = this.#home();
      if (target !== "/" && target !== SIGN_IN.path) {
        location.replace(`#${target}`);
        return;
      }
      if (home && home !== "/") {
        location.replace(`#${home}`);
        return;
      }
    }
    for (const page of PAGES) {
      const params = matchPath(page.path, path);
      if (!params) continue;
      if (this.#allowed(page)) this.#show(page, { path: params, query });
      else this.#message("page.forbidden.title", "page.forbidden.body");
      return;
    }
    if (path === "/") this.#message("page.empty.title", "page.empty.body");
    else this.#message("page.notFound.title", "page.notFound.body");
  }

  #show(page: PageDef, params: { path: Record<string, string>; query: URLSearchParams }): void {
    this.#current = page;
    this.#relabel(page);
    this.#cleanup = page.render(this.#freshHost(), this.#context(), params);
  }

  /** The shell and the document's title in the current language; the page itself is left as it is. */
  #relabel(page: PageDef): void {
    document.documentElement.lang = this.#i18n.language;
    this.#renderShell();
    document.title = `${this.#i18n.t(page.titleKey)} · Caudal`;
  }

  #message(
    titleKey: "page.forbidden.title" | "page.notFound.title" | "page.empty.title",
    bodyKey: "page.forbidden.body" | "page.notFound.body" | "page.empty.body",
  ): void {
    this.#current = null;
    this.#renderShell();
    document.title = `${this.#i18n.t(titleKey)} · Caudal`;
    render(html`<h1>${this.#i18n.t(titleKey)}</h1><p>${this.#i18n.t(bodyKey)}</p>`, this.#freshHost());
  }

  /** Each page renders into a new element: nothing of the previous page (its DOM, lit's markers) stays. */
  #freshHost(): HTMLElement {
    const host = document.createElement("div");
    host.className = "page";
    this.#main().replaceChildren(host);
    return host;
  }

  #main(): HTMLElement {
    const main = this.#root.querySelector<HTMLElement>("main");
    if (!main) throw new Error("the shell has no <main>");
    return main;
  }

  #renderShell(): void {
    const t = (k: Parameters<I18n["t"]>[0], p?: Record<string, string | number>) => this.#i18n.t(k, p);
    const state = this.#session.state;
    const nav = state ? PAGES.filter((p) => p.nav && this.#allowed(p)) : [];
    const setLanguage = (e: Event) => this.#i18n.set((e.target as HTMLSelectElement).value as Language);
    render(
      html`<a class="skip-link" href="#main" @click=${(e: Event) => {
        e.preventDefault();
        this.#main().focus();
      }}>${t("shell.skip")}</a>
        <header class="topbar">
          <a class="brand" href="#/">Caudal</a>
          ${
            state
              ? html`<nav aria-label=${t("shell.nav")}><ul class="nav-list">
                ${nav.map(
                  (p) =>
                    html`<li><a href="#${p.nav?.href ?? p.path}" aria-current=${this.#current === p || this.#current?.navOf === p.id ? "page" : "false"}>${p.nav ? t(p.nav.labelKey) : ""}</a></li>`,
                )}
              </ul></nav>`
              : null
          }
          <div class="topbar-tools">
            ${
              state && roleCan(state.role, "telemetry:read")
                ? html`<span class="stream-status status-${this.#stream.status}" data-testid="stream-status">${t(`stream.${this.#stream.status}`)}</span>`
                : null
            }
            <label class="language">
              <span class="visually-hidden">${t("shell.language")}</span>
              <select @change=${setLanguage} data-testid="language">
                ${LANGUAGES.map((l) => html`<option value=${l} ?selected=${l === this.#i18n.language}>${t(`language.${l}`)}</option>`)}
              </select>
            </label>
            ${
              state
                ? html`<span class="role" data-testid="role">${t(`role.${state.role}`)}</span>
                  <button type="button" @click=${() => void this.#session.logout()} data-testid="sign-out">${t("shell.signOut")}</button>`
                : null
            }
          </div>
        </header>
        ${this.#banner.view(this.#i18n)}
        <main id="main" tabindex="-1"></main>`,
      this.#root,
    );
  }
}
