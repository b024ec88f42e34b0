import { html, nothing, render, svg } from "lit/html.js";
import type { RecoveryCodes, TwoFactorSetup, User } from "../api/admin-types.ts";
import { ApiError } from "../api/api-error.ts";
import { tokenSubject } from "../api/token-subject.ts";
import { saveFile } from "../app/download.ts";
import type { PageContext, PageDef } from "../app/page.ts";
import { sectionTabs } from "../app/section-tabs.ts";
import type { MessageKey } from "../i18n/i18n.ts";
import { QUIET_ZONE, qrSymbol } from "../two-factor/qr-code.ts";
import { ADMINISTRATION, ADMINISTRATION_TABS } from "./sections.ts";

/** The API's refusals of a code or password, in the user's language (the API's message otherwise). */
const REFUSALS: Record<string, MessageKey> = {
  TwoFactorFailed: "signIn.error.totp",
  RecoveryCodeInvalid: "signIn.error.recovery",
  InvalidCredentials: "twoFactor.wrongPassword",
};

/** A message: a catalog key, or the API's own words. */
type Said = { key: MessageKey } | { text: string };

/**
 * Two-factor authentication for oneself: set-up with a QR code of the otpauth:// URI (and the
 * secret written out, for typing), confirmation with a code, the recovery codes shown once; once
 * on, new recovery codes or turning it off. Status from GET /api/admin/users/{own id}.
 */
function renderTwoFactor(host: HTMLElement, ctx: PageContext) {
  const { i18n, api } = ctx;
  const userId = tokenSubject(ctx.session.state?.token ?? "");
  let me: User | null = null;
  let setup: TwoFactorSetup | null = null;
  let codes: string[] | null = null;
  /** Kept untranslated, so a language switch shows them in the new language. */
  let error: Said | null = null;
  let notice: MessageKey | null = null;
  let busy = false;

  const describe = (err: unknown): Said => {
    if (err instanceof ApiError) {
      const key = REFUSALS[err.code];
      return key ? { key } : { text: err.message };
    }
    return { text: err instanceof Error ? err.message : String(err) };
  };
  const say = (said: Said) => ("key" in said ? i18n.t(said.key) : said.text);

  const loadMe = async () => {
    try {
      me = await api.get<User>(`/api/admin/users/${userId}`);
    } catch (err) {
      error = describe(err);
    }
    update();
  };

  /** Runs one API call with the page busy, showing its refusal; true when it succeeded. */
  const run = async (call: () => Promise<void>) => {
    busy = true;
    error = null;
    notice = null;
    update();
    try {
      await call();
      return true;
    } catch (err) {
      error = describe(err);
      return false;
    } finally {
      busy = false;
      update();
    }
  };

  const formValue = (e: SubmitEvent, name: string) =>
    String(new FormData(e.target as HTMLFormElement).get(name) ?? "").trim();

  const begin = () =>
    run(async () => {
      setup = await api.post<TwoFactorSetup>("/api/auth/2fa/setup");
    }).then(() => host.querySelector<HTMLInputElement>("#two-factor-code")?.focus());

  const enable = (e: SubmitEvent) => {
    e.preventDefault();
    const code = formValue(e, "code");
    void run(async () => {
      codes = (await api.post<RecoveryCodes>("/api/auth/2fa/enable", { code })).recovery_codes;
      setup = null;
      notice = "twoFactor.enabled";
      await loadMe();
    });
  };

  const replaceCodes = (e: SubmitEvent) => {
    e.preventDefault();
    const code = formValue(e, "code");
    void run(async () => {
      codes = (await api.post<RecoveryCodes>("/api/auth/2fa/recovery-codes", { code })).recovery_codes;
      notice = "twoFactor.codesReplaced";
    });
  };

  const disable = (e: SubmitEvent) => {
    e.preventDefault();
    const body = { password: formValue(e, "password"), code: formValue(e, "code") };
    void run(async () => {
      await api.post("/api/auth/2fa/disable", body);
      notice = "twoFactor.disabled";
      await loadMe();
    });
  };

  const qrView = (uri: string) => {
    const { size, path } = qrSymbol(uri);
    const side = size + 2 * QUIET_ZONE;
    return html`<svg class="qr" viewBox="${-QUIET_ZONE} ${-QUIET_ZONE} ${side} ${side}" role="img"
      aria-label=${i18n.t("twoFactor.qrLabel")} shape-rendering="crispEdges" data-testid="two-factor-qr">
      ${svg`<rect x=${-QUIET_ZONE} y=${-QUIET_ZONE} width=${side} height=${side} fill="#fff"></rect>
        <path d=${path} fill="#000"></path>`}
    </svg>`;
  };

  const codeInput = (id: string, help: MessageKey, labelKey: MessageKey = "signIn.totp") =>
    html`<div class="field"><label for=${id}>${i18n.t(labelKey)}</label>
      <input id=${id} name="code" autocomplete="one-time-code" required aria-describedby="${id}-help">
      <span class="muted" id="${id}-help">${i18n.t(help)}</span></div>`;

  const codesView = (
    list: string[],
  ) => html`<section class="panel recovery-codes" data-testid="recovery-codes">
    <h2>${i18n.t("twoFactor.codesTitle")}</h2>
    <p class="notice">${i18n.t("twoFactor.codesOnce")}</p>
    <ol class="codes">${list.map((c) => html`<li><code>${c}</code></li>`)}</ol>
    <button type="button" @click=${() => saveFile(new Blob([`${list.join("\n")}\n`], { type: "text/plain" }), "caudal-recovery-codes.txt")}>
      ${i18n.t("twoFactor.saveCodes")}</button>
    <button type="button" @click=${() => {
      codes = null;
      update();
    }}>${i18n.t("twoFactor.codesDone")}</button>
  </section>`;

  const offView = () =>
    setup
      ? html`<section class="panel"><h2>${i18n.t("twoFactor.scanTitle")}</h2>
          <div class="qr-setup">
            ${qrView(setup.otpauth_url)}
            <div>
              <p>${i18n.t("twoFactor.scanHelp")}</p>
              <p>${i18n.t("twoFactor.secretHelp")}<br><code class="secret" data-testid="two-factor-secret">${setup.secret}</code></p>
              <form @submit=${enable} novalidate>
                ${codeInput("two-factor-code", "signIn.totpHelp")}
                <button type="submit" ?disabled=${busy}>${i18n.t("twoFactor.enable")}</button>
              </form>
            </div>
          </div></section>`
      : html`<p>${i18n.t("twoFactor.offBody")}</p>
          <button type="button" ?disabled=${busy} @click=${() => void begin()}>${i18n.t("twoFactor.begin")}</button>`;

  const onView = () => html`<section class="panel"><h2>${i18n.t("twoFactor.newCodesTitle")}</h2>
      <form @submit=${replaceCodes} novalidate>
        ${codeInput("two-factor-codes-code", "twoFactor.codeOrRecovery", "twoFactor.code")}
        <button type="submit" ?disabled=${busy}>${i18n.t("twoFactor.newCodes")}</button>
      </form></section>
    <section class="panel"><h2>${i18n.t("twoFactor.disableTitle")}</h2>
      <form @submit=${disable} novalidate>
        <div class="field"><label for="two-factor-password">${i18n.t("signIn.password")}</label>
          <input id="two-factor-password" name="password" type="password" autocomplete="current-password" required></div>
        ${codeInput("two-factor-disable-code", "twoFactor.codeOrRecovery", "twoFactor.code")}
        <button type="submit" ?disabled=${busy}>${i18n.t("twoFactor.disable")}</button>
      </form></section>`;

  const update = () =>
    render(
      html`<h1>${i18n.t("twoFactor.title")}</h1>
        ${sectionTabs(ctx, "nav.administration", ADMINISTRATION_TABS, ADMINISTRATION.twoFactor)}
        ${error ? html`<p class="error" role="alert" data-testid="two-factor-error">${say(error)}</p>` : nothing}
        ${notice ? html`<p class="notice" role="status">${i18n.t(notice)}</p>` : nothing}
        ${codes ? codesView(codes) : nothing}
        ${
          me === null
            ? error
              ? nothing
              : html`<p aria-busy="true">${i18n.t("common.loading")}</p>`
            : html`<p data-testid="two-factor-status"><span class="badge ${me.two_factor_enabled ? "status-online" : "status-degraded"}">${i18n.t(
                me.two_factor_enabled ? "users.twoFactorOn" : "users.twoFactorOff",
              )}</span> ${i18n.t("twoFactor.account", { email: me.email })}</p>
              ${me.two_factor_enabled ? onView() : offView()}`
        }`,
      host,
    );

  update();
  if (userId) void loadMe();
  else {
    error = { key: "common.unavailable" };
    update();
  }
  // Redrawn in place on a language change: the set-up in progress and the codes stay.
  const stopRelabelling = i18n.onChange(update);
  return () => {
    stopRelabelling();
    // The secret and the codes are shown once: leaving the page forgets them.
    setup = null;
    codes = null;
  };
}

export const twoFactorPage: PageDef = {
  id: "admin-two-factor",
  path: ADMINISTRATION.twoFactor.path,
  titleKey: "twoFactor.title",
  navOf: "admin-users",
  requires: ADMINISTRATION.twoFactor.requires,
  redrawsOnLanguageChange: true,
  render: renderTwoFactor,
};
