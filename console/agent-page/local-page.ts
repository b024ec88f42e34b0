import { render } from "lit/html.js";
import { Formats } from "../src/i18n/format.ts";
import { PageI18n } from "./i18n.ts";
import { LocalApiPoller } from "./local-api-poller.ts";
import { pageView, type ViewContext } from "./view.ts";

/** How often the page asks the agent: values move on the page within this of a new reading. */
const POLL_MS = 2_000;

/**
 * The agent's local page: read-only, fed only by the agent's own local API, so it works with the
 * WAN down. Renders the last answers on every poll and on a change of language.
 */
export class LocalPage {
  readonly #root: HTMLElement;
  readonly #i18n = new PageI18n(navigator.languages, localStorage);
  readonly #poller = new LocalApiPoller(POLL_MS, () => this.#render());
  #formats = new Formats(this.#i18n.locale);
  readonly #timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  constructor(root: HTMLElement) {
    this.#root = root;
  }

  start(): void {
    this.#render();
    this.#poller.start();
  }

  #render(): void {
    document.documentElement.lang = this.#i18n.language;
    document.title = this.#i18n.t("page.title");
    const ctx: ViewContext = {
      i18n: this.#i18n,
      formats: this.#formats,
      timeZone: this.#timeZone,
      setLanguage: (language) => {
        this.#i18n.set(language);
        this.#formats = new Formats(this.#i18n.locale);
        this.#render();
      },
    };
    render(pageView(this.#poller.state, ctx), this.#root);
  }
}
