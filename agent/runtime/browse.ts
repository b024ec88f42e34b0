import type { AgentDevice } from "../../shared/mqtt/agent-config.ts";
import type { DriverFactory } from "../drivers/driver.ts";
import type { TestReadAnswer } from "./test-read.ts";

export type BrowseAnswer = TestReadAnswer & { nodes?: NonNullable<Awaited<ReturnType<typeof browseOnce>>> };

/**
 * The children of one node of a device's address space (OPC UA), for the server's browse
 * (issue 9 §2): a fresh connection beside the running pollers, bounded by `timeoutMs`.
 */
export async function browseDevice(
  device: AgentDevice,
  nodeId: string | null,
  timeoutMs: number,
  factory: DriverFactory,
): Promise<BrowseAnswer> {
  try {
    const nodes = await browseOnce(device, nodeId, timeoutMs, factory);
    return { ok: true, error: null, results: [], nodes };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err), results: [] };
  }
}

async function browseOnce(
  device: AgentDevice,
  nodeId: string | null,
  timeoutMs: number,
  factory: DriverFactory,
) {
  const driver = factory(
    { ...device, variables: [] },
    { timeoutMs: Math.max(100, Math.floor(timeoutMs / 2)) },
  );
  if (!driver.browse) throw new Error(`${device.protocol} devices have no address space to browse`);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer from the device within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    const browse = driver.browse.bind(driver);
    return await Promise.race([driver.connect().then(() => browse(nodeId)), deadline]);
  } finally {
    clearTimeout(timer);
    await driver.close().catch(() => {});
  }
}
