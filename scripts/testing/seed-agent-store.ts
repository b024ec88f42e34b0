import { randomUUID } from "node:crypto";
import { AgentStore } from "../../agent/store/agent-store.ts";
import { type AgentRuntimeConfig, configHash } from "../../shared/mqtt/agent-config.ts";

/**
 * An agent data dir as after a reboot with the WAN down: `config` is the applied configuration in
 * its store, so the agent polls at once without a server.
 */
export function seedAppliedConfig(dataDir: string, config: AgentRuntimeConfig): void {
  const store = new AgentStore(dataDir, { maxBytes: 1 << 30, onDrop: () => {} });
  store.open();
  try {
    store.saveAppliedConfig({
      deploymentId: randomUUID(),
      version: 1,
      hash: configHash(config),
      config,
      appliedAt: Date.now(),
    });
  } finally {
    store.close();
  }
}
