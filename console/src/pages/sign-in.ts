import { html, nothing, render } from "lit/html.js";
import { ApiError } from "../api/api-error.ts";
import type { LoginInput } from "../api/session.ts";
import type { PageContext, PageDef, RouteParams } from "../app/page.ts";
import type { MessageKey } from "../i18n/i18n.ts";

type Step = "password" | "totp" | "recovery";

/** The instant in "…; try again after 2025-03-11T15:30:00.000Z" (AccountLocked). */
function lockedUntil(message: string): number | null {
  const iso = /\d{4}-\d{2}-\d{2}T[\d:.]+Z/.exec(message)?.[0];
  return iso ? Date.parse(iso) : null;
}

const ERRORS: Record<string, MessageKey> = {
  InvalidCredentials: "signIn.error.credentials",
  TwoFactorFailed: "signIn.error.totp",
  RecoveryCodeInvalid: "signIn.error.recovery",
  ValidationFailed: "signIn.error.invalid",
};

/**
 * Email and password, then (when the API answers TwoFactorRequired) a TOTP code or a recovery
 * code. The password stays in this page's memory only until the second step is done.
 */
function renderSignIn(host: HTMLElement, ctx: PageContext, params: RouteParams) {
  const { i18n } = ctx;
  let step: Step = "password";
  let email = "";
  let password = "";
  let busy = false;
  let setupNeeded = false;
  let error: string | null = null;
  const ended = params.query.get("ended");
  let notice: string | null =
    ended === "expired"
      ? i18n.t("signIn.expired")
      : ended === "signed_out"
        ? i18n.t("signIn.signedOut")
        : null;

  const describe = (err: unknown): string => {
    if (!(err instanceof ApiError)) return i18n.t("signIn.error.network");
    if (err.code === "AccountLocked") {
      const until = lockedUntil(err.message);
      return i18n.t("signIn.error.locked", {
        until:
          until === null
            ? "—"
            : ctx.formats.dateTime(until, Intl.DateTimeFormat().resolvedOptions().timeZone),
      });
    }
    if (err.code === "RateLimited")
      return i18n.t("signIn.error.rateLimited", { seconds: err.retryAfterSeconds ?? 60 });
    const key = ERRORS[err.code];
    return key ? i18n.t(key) : i18n.t("signIn.error.other", { message: err.message });
  };

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const input: LoginInput =
      step === "password"
        ? { email: String(form.get("email") ?? "").trim(), password: String(form.get("password") ?? "") }
        : { email, password };
    if (step === "totp") input.totp_code = String(form.get("code") ?? "").trim();
    if (step === "recovery") input.recovery_code = String(form.get("code") ?? "").trim();
    email = input.email;
    busy = true;
    error = null;
    notice = null;
    update();
    try {
      await ctx.session.login(input);
      password = "";
    } catch (err) {
      if (err instanceof ApiError && err.code === "TwoFactorRequired") {
        password = input.password;
        step = "totp";
      } else {
        error = describe(err);
        if (err instanceof ApiError && err.code === "AccountLocked") {
          step = "password";
          password = "";
        }
      }
      busy = false;
      update();
      host
        .querySelector<HTMLInputElement>(step === "password" ? "input[name=email]" : "input[name=code]")
        ?.focus();
    }
  };

  const update = () =>
    render(
      html`<section class="sign-in">
        <h1>${i18n.t("signIn.title")}</h1>
        ${notice ? html`<p class="notice" role="status">${notice}</p>` : nothing}
        ${
          setupNeeded
            ? html`<p class="notice" data-testid="setup-needed">${i18n.t("signIn.setupNeeded")}
              <a href="docs">${i18n.t("signIn.setupLink")}</a></p>`
            : nothing
        }
        <form @submit=${submit} novalidate>
          ${
            step === "password"
              ? html`<label>${i18n.t("signIn.email")}
                  <input name="email" type="email" autocomplete="username" required .value=${email}></label>
                <label>${i18n.t("signIn.password")}
                  <input name="password" type="password" autocomplete="current-password" required></label>`
              : html`<p>${i18n.t(step === "totp" ? "signIn.totpHelp" : "signIn.recoveryHelp")}</p>
                <label>${i18n.t(step === "totp" ? "signIn.totp" : "signIn.recovery")}
                  <input name="code" autocomplete="one-time-code" required
                    inputmode=${step === "totp" ? "numeric" : "text"} maxlength=${step === "totp" ? 6 : 64}></label>`
          }
          ${error ? html`<p class="error" role="alert" data-testid="sign-in-error">${error}</p>` : nothing}
          <button type="submit" ?disabled=${busy}>${i18n.t(step === "password" ? "signIn.submit" : "signIn.verify")}</button>
          ${
            step === "password"
              ? nothing
              : html`<button type="button" class="link" @click=${() => {
                  step = step === "totp" ? "recovery" : "totp";
                  error = null;
                  update();
                }}>${i18n.t(step === "totp" ? "signIn.useRecovery" : "signIn.useTotp")}</button>
                <button type="button" class="link" @click=${() => {
                  step = "password";
                  password = "";
                  error = null;
                  update();
                }}>${i18n.t("signIn.back")}</button>`
          }
        </form>
      </section>`,
      host,
    );
  update();
  host.querySelector<HTMLInputElement>("input")?.focus();
  // A server with no account yet: say how the first one is made (the console does not make it).
  void fetch("/api/auth/setup/status")
    .then((res) => (res.ok ? (res.json() as Promise<{ requires_setup: boolean }>) : null))
    .then((status) => {
      if (!status?.requires_setup) return;
      setupNeeded = true;
      update();
    })
    .catch(() => undefined);
  return () => {
    password = "";
  };
}

export const signInPage: PageDef = {
  id: "sign-in",
  path: "/sign-in",
  titleKey: "signIn.title",
  requires: [],
  render: renderSignIn,
};
