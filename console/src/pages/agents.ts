import { html, nothing } from "lit/html.js";
import type { PageContext, PageDef, RouteParams } from "../app/page.ts";
import { DeploymentsPanel } from "./agents/deployments-panel.ts";
import { DeviceCheckPanel } from "./agents/device-check.ts";
import { HealthPanel } from "./agents/health-panel.ts";
import { LogsPanel } from "./agents/logs-panel.ts";
import { renderProjectSections, type SectionPart } from "./project-sections.ts";

/** Health and the configuration's state are read again this often while the page is open. */
const REFRESH_MS = 15_000;

/**
 * Page 5: a project's agent (health, buffer backlog, running configuration), its deployments
 * (with Deploy for config:write), its logs, and, for config:write, a test-read or OPC UA browse
 * of a device through it.
 */
function renderAgents(host: HTMLElement, ctx: PageContext, params: RouteParams) {
  return renderProjectSections(host, ctx, params, {
    titleKey: "agents.title",
    path: "/agents",
    sectionClass: "agents-section",
    load: (project) => project,
    about: (project, projects) =>
      projects.length <= 1 ? html`<p class="muted">${project.name}</p>` : nothing,
    mount: (project, section) => {
      const health = new HealthPanel(section("agents-health"), ctx, project);
      const deployments = new DeploymentsPanel(
        section("agents-config"),
        ctx,
        project,
        () => void health.refresh(),
      );
      const logs = new LogsPanel(section("agents-logs"), ctx, project);
      const parts: SectionPart[] = [health, deployments, logs];
      if (ctx.can("config:write")) parts.push(new DeviceCheckPanel(section("agents-check"), ctx, project.id));
      const timer = setInterval(() => {
        void health.refresh();
        void deployments.refresh();
      }, REFRESH_MS);
      parts.push({ destroy: () => clearInterval(timer) });
      return parts;
    },
  });
}

export const agentsPage: PageDef = {
  id: "agents",
  path: "/agents",
  titleKey: "agents.title",
  nav: { labelKey: "nav.agents" },
  requires: ["projects:read", "config:read"],
  render: renderAgents,
};
