import { eq } from "drizzle-orm";
import { devices } from "../../../db/schema/index.ts";
import { notFound } from "../../../http/errors.ts";
import { appendAudit } from "../../audit/append-audit.ts";
import type { AuthContext } from "../../auth/auth-context.ts";
import type { ServiceContext } from "../../context.ts";
import { type DeviceDto, toDeviceDto } from "../dto.ts";
import type { DeviceInput } from "../inputs.ts";
import { visibleDevice } from "../lookup.ts";
import { deviceColumns } from "./create-device.ts";

/** PUT semantics: the body replaces every writable field; the device stays on its asset. */
export function replaceDevice(
  ctx: ServiceContext,
  auth: AuthContext,
  id: string,
  input: DeviceInput,
): DeviceDto {
  const now = ctx.clock.now();
  return ctx.db.transaction((tx) => {
    const current = visibleDevice(tx, auth, id);
    const row = tx
      .update(devices)
      .set({ ...deviceColumns(input), updatedAt: now })
      .where(eq(devices.id, id))
      .returning()
      .get();
    if (!row) throw notFound("device");
    const after = toDeviceDto(row);
    appendAudit(tx, {
      at: now,
      userId: auth.userId,
      projectId: current.projectId,
      entity: "device",
      entityId: id,
      action: "update",
      before: toDeviceDto(current.device),
      after,
    });
    return after;
  });
}
