import type { ServiceContext } from "../../../services/context.ts";
import type { Router } from "../../router.ts";
import { mountCreateVariable } from "./create.ts";
import { mountDeleteVariable } from "./delete.ts";
import { mountGetVariable } from "./get.ts";
import { mountListVariables } from "./list.ts";
import { mountReplaceVariable } from "./replace.ts";

/** /edge/devices/{device_id}/variables and /edge/variables/{id}. */
export function mountVariableRoutes(router: Router, ctx: ServiceContext): void {
  mountListVariables(router, ctx);
  mountCreateVariable(router, ctx);
  mountGetVariable(router, ctx);
  mountReplaceVariable(router, ctx);
  mountDeleteVariable(router, ctx);
}
