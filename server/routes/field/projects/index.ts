import type { ServiceContext } from "../../../services/context.ts";
import type { Router } from "../../router.ts";
import { mountCreateProject } from "./create.ts";
import { mountDeleteProject } from "./delete.ts";
import { mountGetProjectFull } from "./full.ts";
import { mountGetProject } from "./get.ts";
import { mountListProjects } from "./list.ts";
import { mountReplaceProject } from "./replace.ts";

/** /edge/projects CRUD (spec §4, "Edge projects and agents"). */
export function mountProjectRoutes(router: Router, ctx: ServiceContext): void {
  mountListProjects(router, ctx);
  mountCreateProject(router, ctx);
  mountGetProject(router, ctx);
  mountReplaceProject(router, ctx);
  mountDeleteProject(router, ctx);
  mountGetProjectFull(router, ctx);
}
