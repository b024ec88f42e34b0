import { html } from "lit/html.js";
import type { ProjectWithConfigStatus } from "../api/types.ts";
import type { PageContext, PageDef, RouteParams } from "../app/page.ts";
import { FieldSection } from "./configuration/field-section.ts";
import { InstallersSection } from "./configuration/installers-section.ts";
import { RulesSection } from "./configuration/rules-section.ts";
import { renderProjectSections } from "./project-sections.ts";

/**
 * Page 6, for supervisor and above: a project's devices, variables and alert rules (create, edit,
 * delete, with the API's validation messages beside the fields), and what installs its agent.
 */
function renderConfiguration(host: HTMLElement, ctx: PageContext, params: RouteParams) {
  const { i18n } = ctx;
  return renderProjectSections(host, ctx, params, {
    titleKey: "config.title",
    path: "/configuration",
    sectionClass: "config-section",
    load: (project) => ctx.api.get<ProjectWithConfigStatus>(`/api/edge/projects/${project.id}`),
    about: (project) =>
      html`<p class="muted" data-testid="auto-deploy">${i18n.t(project.auto_deploy ? "config.autoDeployOn" : "config.autoDeployOff")}
        <a href="#/agents?project=${project.id}">${i18n.t("config.toAgents")}</a></p>`,
    mount: (project, section) => [
      new FieldSection(section("config-field"), ctx, project.id),
      new RulesSection(section("config-rules"), ctx, project.id),
      new InstallersSection(section("config-installers"), ctx, project),
    ],
  });
}

export const configurationPage: PageDef = {
  id: "configuration",
  path: "/configuration",
  titleKey: "config.title",
  nav: { labelKey: "nav.configuration" },
  requires: ["projects:read", "config:read", "config:write"],
  render: renderConfiguration,
};
