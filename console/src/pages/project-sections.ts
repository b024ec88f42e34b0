import { html, nothing, render, type TemplateResult } from "lit/html.js";
import type { Project } from "../api/types.ts";
import { errorText } from "../app/load-status.ts";
import type { Cleanup, PageContext, RouteParams } from "../app/page.ts";
import { projectSelect } from "../app/project-select.ts";
import type { MessageKey } from "../i18n/i18n.ts";

/** A part of the page that stops its timers and requests when the page is left. */
export type SectionPart = { destroy(): void };

export type ProjectSections<P extends Project> = {
  titleKey: MessageKey;
  /** The page's path: the project picker goes to `<path>?project=<id>`. */
  path: string;
  /** Each section element's class. */
  sectionClass: string;
  /** What the page needs of the project chosen: its entry in the list, or more asked of the API. */
  load: (project: Project) => P | Promise<P>;
  /** A line under the title about the project chosen. */
  about?: (project: P, projects: readonly Project[]) => TemplateResult | typeof nothing;
  /** The sections, once the project is known; `section` adds one, labelled by its heading's id. */
  mount: (project: P, section: (labelledBy: string) => HTMLElement) => SectionPart[];
};

/**
 * A page of sections about one of the user's projects (agents, configuration): its title, the
 * project picker, a message while the projects cannot be read or when there are none, then the
 * sections. The project comes from `?project=`, else the first of the list.
 */
export function renderProjectSections<P extends Project>(
  host: HTMLElement,
  ctx: PageContext,
  params: RouteParams,
  page: ProjectSections<P>,
): Cleanup {
  const { i18n } = ctx;
  const header = document.createElement("div");
  host.append(header);
  const section = (labelledBy: string) => {
    const el = document.createElement("section");
    el.className = page.sectionClass;
    el.setAttribute("aria-labelledby", labelledBy);
    host.append(el);
    return el;
  };
  const parts: SectionPart[] = [];
  let disposed = false;

  const headerView = (
    projects: readonly Project[],
    project: P | null,
    message?: { text: string; error: boolean },
  ) =>
    render(
      html`<h1>${i18n.t(page.titleKey)}</h1>
        ${projectSelect(ctx, projects, project ?? undefined, (id) => `${page.path}?project=${id}`)}
        ${project && page.about ? page.about(project, projects) : nothing}
        ${message ? html`<p class=${message.error ? "error" : ""} role=${message.error ? "alert" : "status"}>${message.text}</p>` : nothing}`,
      header,
    );

  headerView([], null);
  void (async () => {
    let projects: Project[] = [];
    try {
      projects = await ctx.projects.list();
      const chosen = projects.find((p) => p.id === params.query.get("project")) ?? projects[0];
      if (!chosen) {
        if (!disposed) headerView(projects, null, { text: i18n.t("overview.noProjects"), error: false });
        return;
      }
      const project = await page.load(chosen);
      if (disposed) return;
      headerView(projects, project);
      parts.push(...page.mount(project, section));
    } catch (err) {
      if (!disposed)
        headerView(projects, null, {
          text: i18n.t("common.failed", { message: errorText(err) }),
          error: true,
        });
    }
  })();
  return () => {
    disposed = true;
    for (const part of parts) part.destroy();
  };
}
