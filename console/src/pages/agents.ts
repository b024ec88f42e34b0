import { html, nothing, render } from "lit/html.js";
import type { Project } from "../api/types.ts";
import type { PageContext, PageDef, RouteParams } from "../app/page.ts";
import { DeploymentsPanel } from "./agents/deployments-panel.ts";
import { DeviceCheckPanel } from "./agents/device-check.ts";
import { HealthPanel } from "./agents/health-panel.ts";
import { LogsPanel } from "./agents/logs-panel.ts";

/** Health and the configuration's state are read again this often while the page is open. */
const REFRESH_MS = 15_000;

/**
 * Page 5: a project's agent (health, buffer backlog, running configuration), its deployments
 * (with Deploy for config:write), its logs, and, for config:write, a test-read or OPC UA browse
 * of a device through it.
 */
function renderAgents(host: HTMLElement, ctx: PageContext, params: RouteParams) {
  const { i18n } = ctx;
  const header = document.createElement("div");
  host.append(header);
  const section = (labelledBy: string) => {
    const el = document.createElement("section");
    el.className = "agents-section";
    el.setAttribute("aria-labelledby", labelledBy);
    host.append(el);
    return el;
  };
  const parts: { destroy(): void }[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;
  let disposed = false;

  const headerView = (
    projects: Project[],
    project: Project | null,
    message?: { text: string; error: boolean },
  ) =>
    render(
      html`<h1>${i18n.t("agents.title")}</h1>
        ${
          projects.length > 1
            ? html`<label class="project-pick">${i18n.t("project.title")}
              <select @change=${(e: Event) => ctx.navigate(`/agents?project=${(e.target as HTMLSelectElement).value}`)}>
                ${projects.map((p) => html`<option value=${p.id} ?selected=${p === project}>${p.name}</option>`)}
              </select></label>`
            : nothing
        }
        ${project && projects.length <= 1 ? html`<p class="muted">${project.name}</p>` : nothing}
        ${message ? html`<p class=${message.error ? "error" : ""} role=${message.error ? "alert" : "status"}>${message.text}</p>` : nothing}`,
      header,
    );

  headerView([], null);
  void (async () => {
    let projects: Project[] = [];
    try {
      projects = await ctx.projects.list();
    } catch (err) {
      headerView([], null, {
        text: i18n.t("common.failed", { message: err instanceof Error ? err.message : "" }),
        error: true,
      });
      return;
    }
    if (disposed) return;
    const project = projects.find((p) => p.id === params.query.get("project")) ?? projects[0] ?? null;
    headerView(
      projects,
      project,
      project ? undefined : { text: i18n.t("overview.noProjects"), error: false },
    );
    if (!project) return;
    const health = new HealthPanel(section("agents-health"), ctx, project);
    const deployments = new DeploymentsPanel(
      section("agents-config"),
      ctx,
      project,
      () => void health.refresh(),
    );
    const logs = new LogsPanel(section("agents-logs"), ctx, project);
    parts.push(health, deployments, logs);
    if (ctx.can("config:write")) parts.push(new DeviceCheckPanel(section("agents-check"), ctx, project.id));
    timer = setInterval(() => {
      void health.refresh();
      void deployments.refresh();
    }, REFRESH_MS);
  })();
  return () => {
    disposed = true;
    clearInterval(timer);
    for (const part of parts) part.destroy();
  };
}

export const agentsPage: PageDef = {
  id: "agents",
  path: "/agents",
  titleKey: "agents.title",
  nav: { labelKey: "nav.agents" },
  requires: ["projects:read", "config:read"],
  render: renderAgents,
};
