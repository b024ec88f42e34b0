import type { ServiceContext } from "../context.ts";
import { autoDeployProject } from "./deploy.ts";
import { KeyedDebounce } from "./keyed-debounce.ts";

/** About 2 s after the last change of a burst (issue 8 §4): twenty variables in a row make one deployment. */
export const AUTO_DEPLOY_DELAY_MS = 2_000;

/**
 * Deploys a project's configuration after changes to its devices, variables or alert rules
 * (`configChanged` events, emitted after commit), debounced per project. autoDeployProject skips
 * projects with auto_deploy off and changes that leave the configuration hash unchanged.
 *
 * Lifecycle: the constructor only assigns; start() subscribes and schedules a check of every
 * auto_deploy project (a change made just before the last stop is not lost); stop() unsubscribes,
 * clears every pending timer and waits for a deployment under way.
 */
export class AutoDeploy {
  readonly #ctx: ServiceContext;
  readonly #debounce: KeyedDebounce;
  /** Deployments under way (each settles: #deploy catches its errors). */
  readonly #running = new Set<Promise<void>>();
  #started = false;

  constructor(ctx: ServiceContext, delayMs = AUTO_DEPLOY_DELAY_MS) {
    this.#ctx = ctx;
    this.#debounce = new KeyedDebounce(delayMs, (projectId) => {
      const run = this.#deploy(projectId).finally(() => this.#running.delete(run));
      this.#running.add(run);
    });
  }

  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.#ctx.events.on("configChanged", this.#onChange);
    const auto = await this.#ctx.store.agents.autoDeployProjectIds();
    // Stopped while the projects were read: nothing is scheduled.
    if (!this.#started) return;
    for (const id of auto) this.#debounce.touch(id);
  }

  /**
   * Deployments waiting for their quiet time or under way: 0 once every change so far is deployed
   * (a deployment takes store round trips, on PostgreSQL many event-loop turns).
   */
  get pending(): number {
    return this.#debounce.pending + this.#running.size;
  }

  async stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    this.#ctx.events.off("configChanged", this.#onChange);
    this.#debounce.clear();
    await Promise.all(this.#running);
  }

  #onChange = ({ projectId }: { projectId: string }): void => {
    this.#debounce.touch(projectId);
  };

  async #deploy(projectId: string): Promise<void> {
    try {
      const d = await autoDeployProject(this.#ctx, projectId);
      // The activity log already tells people about every deployment; this line says why it was made.
      if (d) {
        this.#ctx.logger.debug("configuration deployed automatically", {
          project_id: projectId,
          version: d.version,
          config_hash: d.config_hash,
        });
      }
    } catch (err) {
      // A timer callback: nothing above it to catch. The change stays pending (config_status).
      this.#ctx.logger.error("automatic deployment failed", {
        project_id: projectId,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
}
