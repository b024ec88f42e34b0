import type { ServiceContext } from "../../../services/context.ts";
import type { Router } from "../../router.ts";
import { mountCreateAsset } from "./create.ts";
import { mountDeleteAsset } from "./delete.ts";
import { mountGetAsset } from "./get.ts";
import { mountListAssets } from "./list.ts";
import { mountReplaceAsset } from "./replace.ts";

/** /edge/assets and /edge/projects/{project_id}/assets (spec §4, "Edge assets, devices, variables"). */
export function mountAssetRoutes(router: Router, ctx: ServiceContext): void {
  mountListAssets(router, ctx);
  mountCreateAsset(router, ctx);
  mountGetAsset(router, ctx);
  mountReplaceAsset(router, ctx);
  mountDeleteAsset(router, ctx);
}
