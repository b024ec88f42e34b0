import { html, nothing, type TemplateResult } from "lit/html.js";
import type { Project } from "../api/types.ts";
import type { PageContext } from "./page.ts";

/**
 * The project a page shows, chosen among the user's: the choice goes into the address
 * (`?project=`), so a reload or a shared link keeps it. Nothing to choose with one project.
 */
export function projectSelect(
  ctx: PageContext,
  projects: readonly Project[],
  current: Project | undefined,
  pathFor: (projectId: string) => string,
): TemplateResult | typeof nothing {
  if (projects.length < 2) return nothing;
  return html`<label class="project-select">${ctx.i18n.t("alarms.project")}
    <select data-testid="project-select" @change=${(e: Event) => ctx.navigate(pathFor((e.target as HTMLSelectElement).value))}>
      ${projects.map((p) => html`<option value=${p.id} ?selected=${p.id === current?.id}>${p.name}</option>`)}
    </select></label>`;
}
