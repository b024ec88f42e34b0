import { html, nothing, render } from "lit/html.js";
import type { Role } from "../../../shared/permissions.ts";
import type { User } from "../api/admin-types.ts";
import type { Project } from "../api/types.ts";
import type { PageContext, PageDef } from "../app/page.ts";
import { sectionTabs } from "../app/section-tabs.ts";
import { refusalOf } from "../forms/field-errors.ts";
import { USER_FIELDS, type UserFormState, userForm } from "../users/user-form.ts";
import { ADMINISTRATION, ADMINISTRATION_TABS } from "./sections.ts";

/**
 * Users (admin and above): the list, a new user, and for one user at a time its account (email,
 * name, role, password, active) and its projects. Every rule (who may grant superadmin, the last
 * superadmin, one's own account) is the API's: its refusals are shown as they come.
 */
function renderUsers(host: HTMLElement, ctx: PageContext) {
  const { i18n, formats, api } = ctx;
  let users: User[] | null = null;
  let roles: Role[] = [];
  let projects: Project[] = [];
  let error: string | null = null;
  let notice: string | null = null;
  let creating: UserFormState = { user: null, errors: new Map(), busy: false };
  let editing: UserFormState | null = null;
  let projectsError: string | null = null;
  const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  const load = async () => {
    try {
      [users, roles, projects] = await Promise.all([
        api.get<User[]>("/api/admin/users"),
        api.get<Role[]>("/api/admin/roles"),
        ctx.projects.list(),
      ]);
    } catch (err) {
      error = message(err);
    }
    update();
  };

  const replaced = (user: User) => {
    users = (users ?? []).map((u) => (u.id === user.id ? user : u));
    if (editing?.user?.id === user.id) editing = { ...editing, user };
  };

  const create = async (body: Record<string, unknown>) => {
    creating = { ...creating, busy: true, errors: new Map() };
    update();
    try {
      const user = await api.post<User>("/api/admin/users", body);
      users = [...(users ?? []), user].sort((a, b) => a.email.localeCompare(b.email));
      creating = { user: null, errors: new Map(), busy: false };
      notice = i18n.t("users.created", { email: user.email });
      error = null;
      host.querySelector<HTMLFormElement>("form[data-testid=user-new]")?.reset();
      edit(user);
    } catch (err) {
      const { fields, other } = refusalOf(err, USER_FIELDS);
      creating = { ...creating, busy: false, errors: fields };
      error = other.length > 0 ? other.join("; ") : null;
      notice = null;
    }
    update();
  };

  const save = async (body: Record<string, unknown>) => {
    const user = editing?.user;
    if (!editing || !user) return;
    editing = { ...editing, busy: true, errors: new Map() };
    update();
    try {
      replaced(await api.put<User>(`/api/admin/users/${user.id}`, body));
      editing = { ...editing, busy: false };
      notice = i18n.t("users.saved", { email: String(body.email) });
      error = null;
    } catch (err) {
      const { fields, other } = refusalOf(err, USER_FIELDS);
      editing = { ...editing, busy: false, errors: fields };
      error = other.length > 0 ? other.join("; ") : null;
      notice = null;
    }
    update();
  };

  const assign = async (e: SubmitEvent) => {
    e.preventDefault();
    const user = editing?.user;
    if (!user) return;
    const chosen = new FormData(e.target as HTMLFormElement).getAll("project_ids").map(String);
    try {
      replaced(await api.put<User>(`/api/admin/users/${user.id}/projects`, { project_ids: chosen }));
      notice = i18n.t("users.projectsSaved", { email: user.email });
      projectsError = null;
    } catch (err) {
      projectsError = message(err);
    }
    update();
  };

  const edit = (user: User) => {
    editing = { user, errors: new Map(), busy: false };
    projectsError = null;
    update();
    host.querySelector<HTMLElement>("#user-edit-email")?.focus();
  };

  const projectNames = (ids: readonly string[]) =>
    ids.map((id) => projects.find((p) => p.id === id)?.name ?? id.slice(0, 8)).join(", ") || "—";

  const editView = (state: UserFormState) => {
    const user = state.user;
    if (!user) return nothing;
    return html`<section class="panel" data-testid="user-edit-panel"><h2>${i18n.t("users.editTitle", { email: user.email })}</h2>
      ${userForm(state, roles, i18n, {
        submit: (body) => void save(body),
        cancel: () => {
          editing = null;
          update();
        },
      })}
      <h3>${i18n.t("users.projects")}</h3>
      ${
        user.role === "superadmin" || user.role === "admin"
          ? html`<p class="muted">${i18n.t("users.seesAll")}</p>`
          : nothing
      }
      <form class="project-assignment" @submit=${assign}>
        <fieldset><legend class="visually-hidden">${i18n.t("users.projects")}</legend>
          ${projects.map(
            (p) => html`<label class="checkbox"><input type="checkbox" name="project_ids" value=${p.id}
              ?checked=${user.projects.includes(p.id)}> ${p.name}</label>`,
          )}
        </fieldset>
        ${projectsError ? html`<p class="error" role="alert">${projectsError}</p>` : nothing}
        <button type="submit">${i18n.t("users.saveProjects")}</button>
      </form>
    </section>`;
  };

  const listView = () => {
    if (users === null) return html`<p aria-busy="true">${i18n.t("common.loading")}</p>`;
    return html`<div class="table-scroll"><table data-testid="users">
      <caption class="visually-hidden">${i18n.t("users.title")}</caption>
      <thead><tr>
        <th scope="col">${i18n.t("users.name")}</th><th scope="col">${i18n.t("signIn.email")}</th>
        <th scope="col">${i18n.t("users.role")}</th><th scope="col">${i18n.t("reports.status")}</th>
        <th scope="col">${i18n.t("users.twoFactor")}</th><th scope="col">${i18n.t("users.projects")}</th>
        <th scope="col">${i18n.t("users.createdAt")}</th><th scope="col">${i18n.t("alarms.action")}</th>
      </tr></thead>
      <tbody>${users.map(
        (u) => html`<tr data-user=${u.email}>
          <td>${u.name}</td><td>${u.email}</td><td>${i18n.t(`role.${u.role}`)}</td>
          <td>${i18n.t(u.is_active ? "users.activeYes" : "users.activeNo")}</td>
          <td>${i18n.t(u.two_factor_enabled ? "users.twoFactorYes" : "users.twoFactorNo")}</td>
          <td>${projectNames(u.projects)}</td><td>${formats.dateTime(u.created_at, zone)}</td>
          <td><button type="button" @click=${() => edit(u)} aria-label=${i18n.t("users.editOf", { email: u.email })}>${i18n.t("users.edit")}</button></td>
        </tr>`,
      )}</tbody></table></div>`;
  };

  const update = () =>
    render(
      html`<h1>${i18n.t("users.title")}</h1>
        ${sectionTabs(ctx, "nav.administration", ADMINISTRATION_TABS, ADMINISTRATION.users)}
        ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
        ${notice ? html`<p class="notice" role="status">${notice}</p>` : nothing}
        ${listView()}
        ${editing ? editView(editing) : nothing}
        <section class="panel"><h2>${i18n.t("users.newTitle")}</h2>
          ${userForm(creating, roles, i18n, { submit: (body) => void create(body) })}</section>`,
      host,
    );

  update();
  void load();
  return undefined;
}

export const usersPage: PageDef = {
  id: "admin-users",
  path: ADMINISTRATION.users.path,
  titleKey: "users.title",
  nav: { labelKey: "nav.administration" },
  requires: ADMINISTRATION.users.requires,
  render: renderUsers,
};
