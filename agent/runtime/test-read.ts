import type { AgentDevice } from "../../shared/mqtt/agent-config.ts";
import type { Payload } from "../../shared/mqtt/topics.ts";
import type { DriverFactory } from "../drivers/driver.ts";
import { configProblems } from "./validate-config.ts";

export type TestReadAnswer = Pick<Payload<"response">, "ok" | "error" | "results">;

/**
 * Reads one device once, for the server's test-read (issue 9 §5): the same rules as a deployment
 * (configProblems), then a fresh driver (connect, read every variable, close) beside the running
 * pollers, which it never touches. Bounded by `timeoutMs`; per-tag failures (a wrong address)
 * are results, not a failed answer.
 */
export async function testReadDevice(
  projectId: string,
  device: AgentDevice,
  timeoutMs: number,
  factory: DriverFactory,
): Promise<TestReadAnswer> {
  const problems = configProblems({ project_id: projectId, devices: [device], alert_rules: [] }, projectId);
  if (problems.length > 0) return { ok: false, error: problems.join("; "), results: [] };
  // Each request (connect, one read) gets half the deadline: both fit, and close still has time.
  const driver = factory(device, { timeoutMs: Math.max(100, Math.floor(timeoutMs / 2)) });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer from the device within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    const tags = await Promise.race([driver.connect().then(() => driver.read(device.variables)), deadline]);
    const alias = new Map(device.variables.map((v) => [v.id, v.alias]));
    return {
      ok: true,
      error: null,
      results: tags.map((t) => ({
        variable_id: t.variableId,
        alias: alias.get(t.variableId) ?? "",
        value: t.value,
        quality: t.quality,
        detail: t.detail ?? null,
      })),
    };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err), results: [] };
  } finally {
    clearTimeout(timer);
    await driver.close().catch(() => {});
  }
}
