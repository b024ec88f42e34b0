import { html, nothing, type TemplateResult } from "lit/html.js";
import type { Role } from "../../../shared/permissions.ts";
import type { User } from "../api/admin-types.ts";
import type { I18n, MessageKey } from "../i18n/i18n.ts";

/** The fields of CreateUserRequest (and of PUT /admin/users/{id}, which also takes is_active). */
export const USER_FIELDS = ["email", "name", "role", "password", "is_active"] as const;

export type UserFormState = {
  /** The user edited; null for a new one. */
  user: User | null;
  errors: ReadonlyMap<string, string>;
  busy: boolean;
};

function field(
  id: string,
  name: string,
  labelKey: MessageKey,
  control: TemplateResult,
  state: UserFormState,
  i18n: I18n,
  help?: MessageKey,
) {
  const error = state.errors.get(name);
  return html`<div class="field">
    <label for=${id}>${i18n.t(labelKey)}</label>
    ${control}
    ${help ? html`<span class="muted" id="${id}-help">${i18n.t(help)}</span>` : nothing}
    <span class="field-error" id="${id}-error">${error ?? nothing}</span>
  </div>`;
}

/**
 * A user's account: email, name, role and password, and for an existing user whether it is
 * active. The API replaces all four on every change (spec §4, PUT /admin/users/{id}), so editing
 * needs a password too: the user's own to keep it, or a new one, which ends their sessions.
 */
export function userForm(
  state: UserFormState,
  roles: readonly Role[],
  i18n: I18n,
  handlers: { submit(body: Record<string, unknown>): void; cancel?(): void },
): TemplateResult {
  const { user } = state;
  const prefix = user ? "user-edit" : "user-new";
  const described = (name: string, help = false) =>
    `${prefix}-${name}-error${help ? ` ${prefix}-${name}-help` : ""}`;
  const invalid = (name: string) => (state.errors.has(name) ? "true" : "false");
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const get = (k: string) => String(form.get(k) ?? "");
    const body: Record<string, unknown> = {
      email: get("email").trim(),
      name: get("name"),
      role: get("role"),
      password: get("password"),
    };
    if (user) body.is_active = form.get("is_active") === "on";
    handlers.submit(body);
  };
  return html`<form class="user-form" novalidate @submit=${submit} data-testid=${prefix}>
    <div class="form-grid">
      ${field(
        `${prefix}-email`,
        "email",
        "signIn.email",
        html`<input id="${prefix}-email" name="email" type="email" autocomplete="off" .value=${user?.email ?? ""}
          aria-describedby=${described("email")} aria-invalid=${invalid("email")}>`,
        state,
        i18n,
      )}
      ${field(
        `${prefix}-name`,
        "name",
        "users.name",
        html`<input id="${prefix}-name" name="name" autocomplete="off" .value=${user?.name ?? ""}
          aria-describedby=${described("name")} aria-invalid=${invalid("name")}>`,
        state,
        i18n,
      )}
      ${field(
        `${prefix}-role`,
        "role",
        "users.role",
        html`<select id="${prefix}-role" name="role" aria-describedby=${described("role")} aria-invalid=${invalid("role")}>
          ${roles.map((r) => html`<option value=${r} ?selected=${r === (user?.role ?? "operador")}>${i18n.t(`role.${r}`)}</option>`)}
        </select>`,
        state,
        i18n,
      )}
      ${field(
        `${prefix}-password`,
        "password",
        user ? "users.passwordEdit" : "signIn.password",
        html`<input id="${prefix}-password" name="password" type="password" autocomplete="new-password"
          aria-describedby=${described("password", user !== null)} aria-invalid=${invalid("password")}>`,
        state,
        i18n,
        user ? "users.passwordEditHelp" : undefined,
      )}
      ${
        user
          ? html`<div class="field checkbox"><label><input type="checkbox" name="is_active" ?checked=${user.is_active}>
              ${i18n.t("users.active")}</label>
              <span class="field-error">${state.errors.get("is_active") ?? nothing}</span></div>`
          : nothing
      }
    </div>
    <div class="form-actions">
      <button type="submit" ?disabled=${state.busy}>${i18n.t(user ? "users.save" : "users.create")}</button>
      ${
        handlers.cancel
          ? html`<button type="button" class="link" @click=${() => handlers.cancel?.()}>${i18n.t("common.cancel")}</button>`
          : nothing
      }
    </div>
  </form>`;
}
