import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";

/** Calls `check` every `everyMs` until it is true, the deadline passes or `signal` aborts. */
async function poll(check: () => Promise<boolean>, timeoutMs: number, signal: AbortSignal, everyMs = 250) {
  const deadline = Date.now() + timeoutMs;
  while (!signal.aborted && Date.now() < deadline) {
    if (await check()) return true;
    await sleep(everyMs, undefined, { signal }).catch(() => undefined);
  }
  return false;
}

/** True once GET /health answers (200 ok/degraded, or 503 while the database is not ready). */
export function waitForHealth(base: string, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  return poll(
    async () => {
      try {
        const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) });
        await res.body?.cancel();
        return res.status === 200 || res.status === 503;
      } catch {
        return false;
      }
    },
    timeoutMs,
    signal,
  );
}

/** True once something accepts TCP connections on host:port. */
export function waitForPort(
  host: string,
  port: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  return poll(
    () =>
      new Promise((resolve) => {
        const socket = connect({ host, port });
        socket.once("connect", () => {
          socket.destroy();
          resolve(true);
        });
        socket.once("error", () => resolve(false));
      }),
    timeoutMs,
    signal,
    100,
  );
}

const latest = z.array(
  z.object({ timestamp: z.iso.datetime({ offset: true }), readings: z.array(z.unknown()) }),
);

/**
 * True once GET /api/telemetry/{asset_id} returns a reading taken at `sinceMs` or later (the
 * database may hold readings of an earlier run).
 */
export function waitForTelemetry(
  base: string,
  assetId: string,
  token: string,
  sinceMs: number,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  return poll(
    async () => {
      try {
        const res = await fetch(`${base}/api/telemetry/${assetId}?limit=1`, {
          headers: { authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(2000),
        });
        const body = latest.safeParse(await res.json());
        return (
          res.status === 200 &&
          body.success &&
          body.data.some((p) => p.readings.length > 0 && Date.parse(p.timestamp) >= sinceMs)
        );
      } catch {
        return false;
      }
    },
    timeoutMs,
    signal,
    500,
  );
}

const setupStatus = z.object({ requires_setup: z.boolean() });

/** Whether the first account still has to be made; undefined when the server cannot tell. */
export async function requiresSetup(base: string): Promise<boolean | undefined> {
  try {
    const res = await fetch(`${base}/api/auth/setup/status`, { signal: AbortSignal.timeout(2000) });
    const body = setupStatus.safeParse(await res.json());
    return body.success ? body.data.requires_setup : undefined;
  } catch {
    return undefined;
  }
}
