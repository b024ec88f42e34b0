import { eq } from "drizzle-orm";
import { projects } from "../../store/sqlite/schema/index.ts";
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
 * auto_deploy project (a change made just before the last stop is not lost); stop() unsubscribes
 * and clears every pending timer.
 */
export class AutoDeploy {
  readonly #ctx: ServiceContext;
  readonly #debounce: KeyedDebounce;
  #started = false;

  constructor(ctx: ServiceContext, delayMs = AUTO_DEPLOY_DELAY_MS) {
    this.#ctx = ctx;
    this.#debounce = new KeyedDebounce(delayMs, (projectId) => this.#deploy(projectId));
  }

  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#ctx.events.on("configChanged", this.#onChange);
    const auto = this.#ctx.db
      .select({ id: projects.id })
      .from(projects)
      .where(eq(projects.autoDeploy, true))
      .all();
    for (const p of auto) this.#debounce.touch(p.id);
  }

  /** Projects with a deployment waiting for its quiet time. */
  get pending(): number {
    return this.#debounce.pending;
  }

  stop(): void {
    if (!this.#started) return;
    this.#started = false;
    this.#ctx.events.off("configChanged", this.#onChange);
    this.#debounce.clear();
  }

  #onChange = ({ projectId }: { projectId: string }): void => {
    this.#debounce.touch(projectId);
  };

  #deploy(projectId: string): void {
    try {
      const d = autoDeployProject(this.#ctx, projectId);
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
