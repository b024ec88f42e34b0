import type { ServiceContext } from "../../../services/context.ts";
import type { Router } from "../../router.ts";
import { mountBrowseDevice } from "./browse.ts";
import { mountCreateDevice } from "./create.ts";
import { mountDeleteDevice } from "./delete.ts";
import { mountGetDevice } from "./get.ts";
import { mountListDevices } from "./list.ts";
import { mountReplaceDevice } from "./replace.ts";
import { mountTestReadDevice } from "./test-read.ts";

/** /edge/assets/{asset_id}/devices and /edge/devices/{id}. */
export function mountDeviceRoutes(router: Router, ctx: ServiceContext): void {
  mountListDevices(router, ctx);
  mountCreateDevice(router, ctx);
  mountGetDevice(router, ctx);
  mountReplaceDevice(router, ctx);
  mountDeleteDevice(router, ctx);
  mountTestReadDevice(router, ctx);
  mountBrowseDevice(router, ctx);
}
