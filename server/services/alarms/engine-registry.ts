import type { ServiceContext } from "../context.ts";
import type { AlarmEngine } from "./engine.ts";

/*
 * The running AlarmEngine of a ServiceContext. The rule services tell it about rule changes so its
 * in-memory rule cache and states follow the database; without a running engine (a context used
 * outside the server) there is nothing to tell.
 */
const engines = new WeakMap<ServiceContext, AlarmEngine>();

export function registerAlarmEngine(ctx: ServiceContext, engine: AlarmEngine): void {
  engines.set(ctx, engine);
}

export function unregisterAlarmEngine(ctx: ServiceContext, engine: AlarmEngine): void {
  if (engines.get(ctx) === engine) engines.delete(ctx);
}

export function alarmEngineOf(ctx: ServiceContext): AlarmEngine | undefined {
  return engines.get(ctx);
}
