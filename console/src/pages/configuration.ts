import { html, nothing, render } from "lit/html.js";
import type { Project, ProjectWithConfigStatus } from "../api/types.ts";
import type { PageContext, PageDef, RouteParams } from "../app/page.ts";
import { FieldSection } from "./configuration/field-section.ts";
import { InstallersSection } from "./configuration/installers-section.ts";
import { RulesSection } from "./configuration/rules-section.ts";

/**
 * Page 6, for supervisor and above: a project's devices, variables and alert rules (create, edit,
 * delete, with the API's validation messages beside the fields), and what installs its agent.
 */
function renderConfiguration(host: HTMLElement, ctx: PageContext, params: RouteParams) {
  const { i18n } = ctx;
  const header = document.createElement("div");
  host.append(header);
  const section = (labelledBy: string) => {
    const el = document.createElement("section");
    el.className = "config-section";
    el.setAttribute("aria-labelledby", labelledBy);
    host.append(el);
    return el;
  };
  const parts: { destroy(): void }[] = [];
  let disposed = false;

  const headerView = (
    projects: Project[],
    project: ProjectWithConfigStatus | null,
    message?: { text: string; error: boolean },
  ) =>
    render(
      html`<h1>${i18n.t("config.title")}</h1>
        ${
          projects.length > 1
            ? html`<label class="project-pick">${i18n.t("project.title")}
              <select @change=${(e: Event) => ctx.navigate(`/configuration?project=${(e.target as HTMLSelectElement).value}`)}>
                ${projects.map((p) => html`<option value=${p.id} ?selected=${p.id === project?.id}>${p.name}</option>`)}
              </select></label>`
            : nothing
        }
        ${message ? html`<p class=${message.error ? "error" : ""} role=${message.error ? "alert" : "status"}>${message.text}</p>` : nothing}
        ${
          project
            ? html`<p class="muted" data-testid="auto-deploy">${i18n.t(project.auto_deploy ? "config.autoDeployOn" : "config.autoDeployOff")}
              <a href="#/agents?project=${project.id}">${i18n.t("config.toAgents")}</a></p>`
            : nothing
        }`,
      header,
    );

  headerView([], null);
  void (async () => {
    let projects: Project[] = [];
    try {
      projects = await ctx.projects.list();
      const chosen = projects.find((p) => p.id === params.query.get("project")) ?? projects[0];
      if (!chosen) {
        headerView(projects, null, { text: i18n.t("overview.noProjects"), error: false });
        return;
      }
      const project = await ctx.api.get<ProjectWithConfigStatus>(`/api/edge/projects/${chosen.id}`);
      if (disposed) return;
      headerView(projects, project);
      parts.push(
        new FieldSection(section("config-field"), ctx, project.id),
        new RulesSection(section("config-rules"), ctx, project.id),
        new InstallersSection(section("config-installers"), ctx, project),
      );
    } catch (err) {
      if (!disposed)
        headerView(projects, null, {
          text: i18n.t("common.failed", { message: err instanceof Error ? err.message : "" }),
          error: true,
        });
    }
  })();
  return () => {
    disposed = true;
    for (const part of parts) part.destroy();
  };
}

export const configurationPage: PageDef = {
  id: "configuration",
  path: "/configuration",
  titleKey: "config.title",
  nav: { labelKey: "nav.configuration" },
  requires: ["projects:read", "config:read", "config:write"],
  render: renderConfiguration,
};
