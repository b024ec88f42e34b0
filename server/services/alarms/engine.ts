import { commLossSilence } from "../../../shared/alarms/comm-loss.ts";
import { activeState, evaluate, INITIAL_STATE, type RuleState } from "../../../shared/alarms/evaluator.ts";
import type { ServiceContext } from "../context.ts";
import type { TelemetryEvent } from "../events.ts";
import { type CommLossCandidate, clearCommLoss, raiseCommLoss } from "./comm-loss-store.ts";
import { persistRuleTransitions, type RuleTransition } from "./persist-rule-transitions.ts";
import { publishAlarms } from "./publish.ts";
import { loadEnabledRules, type ProjectRules, type RuleSlot } from "./rule-cache.ts";
import type { RuleChangeListener } from "./rule-listener.ts";

/** How often silence is checked: a tenth of the comm_loss limit, between 1 s and 30 s. */
export function commLossCheckIntervalMs(limitSeconds: number): number {
  return Math.min(30_000, Math.max(1_000, limitSeconds * 100));
}

type Pending = RuleTransition & { slot: RuleSlot; previous: RuleState };

/** One thing the engine does; a promise when it has to wait (it never rejects). */
type Step = () => Promise<void> | undefined;

/** A comm_loss alarm that data arriving ends. */
type EndedCommLoss = { alarmId: string; at: Date; silentSeconds: number };

/**
 * The server's alarm engine: evaluates every committed telemetry event against the enabled rules
 * of its project (shared evaluator, one state per rule and asset) and watches for silent assets.
 *
 * Hot path (ingest emits up to ~300k points/s): per series of a batch one lookup of its project's
 * rules and one by variable alias; no database access unless a transition happens. Rules
 * are read from the store once per project and again after a rule change.
 *
 * Everything it does (start-up state, each telemetry event, each silence check) runs as one step
 * of a queue, one after another, so its in-memory states follow the store in the order events
 * were committed, whatever the store's latency. Events are emitted after their commit, so its
 * writes go through the store's ports like any other caller's.
 *
 * Lifecycle: the constructor only assigns; start() subscribes, starts the comm_loss timer and
 * rebuilds state from storage before any event is handled (a restart never raises again an alarm
 * that is already active); stop() undoes all three once the steps under way are done.
 */
export class AlarmEngine implements RuleChangeListener {
  readonly #ctx: ServiceContext;
  readonly #rulesByProject = new Map<string, ProjectRules>();
  /** rule id → asset id → evaluator state; kept across rule cache reloads. */
  readonly #states = new Map<string, Map<string, RuleState>>();
  /** asset id → when its data last arrived (epoch ms). */
  readonly #lastSeen = new Map<string, number>();
  /** asset id → its active comm_loss alarm. */
  readonly #openCommLoss = new Map<string, string>();
  /** Bumped by every rule change: rules read before it are used once, never cached. */
  #rulesVersion = 0;
  #startedAt = 0;
  #timer: NodeJS.Timeout | undefined;
  /**
   * Steps that wait while one is under way, in order; undefined while none is. A step that needs
   * nothing of the store (most telemetry events) runs at once, without a promise.
   */
  #backlog: Step[] | undefined;
  /** Settles once the backlog is done. */
  #drained: Promise<void> = Promise.resolve();

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
  }

  /** Resolves once the state is rebuilt (events that arrive meanwhile are handled after it). */
  start(): Promise<void> {
    if (this.#timer) return this.#serial(() => Promise.resolve());
    const { config, events } = this.#ctx;
    this.#startedAt = this.#now();
    events.on("telemetry", this.#onTelemetry);
    this.#timer = setInterval(this.#onTimer, commLossCheckIntervalMs(config.COMM_LOSS_SECONDS));
    this.#timer.unref();
    return this.#serial(() => this.#loadState());
  }

  /** Resolves once the steps under way are done; the engine then holds no state. */
  async stop(): Promise<void> {
    if (!this.#timer) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#ctx.events.off("telemetry", this.#onTelemetry);
    await this.#drained;
    this.#rulesByProject.clear();
    this.#states.clear();
    this.#lastSeen.clear();
    this.#openCommLoss.clear();
  }

  /**
   * A project's rules changed (already committed): reload them on the next reading. `resetRuleId`
   * forgets that rule's states (disabled, redefined or deleted: its alarms were returned to normal
   * in the same transaction), so evaluation restarts from normal.
   */
  rulesChanged(projectId: string, resetRuleId?: string): void {
    this.#rulesVersion++;
    this.#rulesByProject.delete(projectId);
    if (resetRuleId !== undefined) this.#states.delete(resetRuleId);
  }

  /**
   * The comm_loss check the timer runs; public so tests can drive it with a TestClock. An asset
   * that has reported is in comm_loss once silent for COMM_LOSS_SECONDS. The server cannot observe
   * while it is down, so silence counts from start-up at the earliest. Resolves to how many were
   * raised, once they are stored.
   */
  tick(): Promise<number> {
    return this.#serial(() => this.#checkSilence());
  }

  /**
   * Resolves once every step queued before it is done: the alarms of the telemetry events emitted
   * so far are stored (on SQLite that is usually before the ingest answers, on PostgreSQL a few
   * round trips later). For tests and callers that read alarms right after writing readings.
   */
  settled(): Promise<void> {
    return this.#serial(() => Promise.resolve());
  }

  async #loadState(): Promise<void> {
    for (const open of await this.#ctx.store.alarms.activeServerAlarms()) {
      if (!open.assetId) continue;
      if (open.alarmType === "comm_loss") this.#openCommLoss.set(open.assetId, open.id);
      else if (open.ruleId)
        this.#statesOf(open.ruleId).set(open.assetId, activeState(open.timestamp.getTime()));
    }
    // When each asset last reported (its series' newest reading), for comm_loss.
    for (const r of await this.#ctx.store.telemetry.lastReports()) this.#lastSeen.set(r.assetId, r.lastTs);
  }

  async #checkSilence(): Promise<number> {
    const now = this.#now();
    const limit = this.#ctx.config.COMM_LOSS_SECONDS;
    const due: CommLossCandidate[] = [];
    for (const [assetId, seenAt] of this.#lastSeen) {
      if (this.#openCommLoss.has(assetId)) continue;
      if (commLossSilence(Math.max(seenAt, this.#startedAt), now, limit) === null) continue;
      due.push({ assetId, silentSeconds: Math.floor((now - seenAt) / 1000) });
    }
    if (due.length === 0) return 0;
    const result = await raiseCommLoss(this.#ctx.store, due, new Date(now), limit);
    for (const assetId of result.gone) this.#lastSeen.delete(assetId);
    for (const [assetId, alarmId] of result.alreadyOpen) this.#openCommLoss.set(assetId, alarmId);
    for (const row of result.raised) if (row.assetId) this.#openCommLoss.set(row.assetId, row.id);
    publishAlarms(this.#ctx, "raised", result.raised);
    return result.raised.length;
  }

  #now(): number {
    return this.#ctx.clock.now().getTime();
  }

  /** Runs `step` once every step queued before it is done; resolves or rejects as it does. */
  #serial<T>(step: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.#run(() => step().then(resolve, reject)));
  }

  /** Runs `step` now when no step is under way, else after those queued; steps never reject. */
  #run(step: Step): void {
    if (this.#backlog) {
      this.#backlog.push(step);
      return;
    }
    const waiting = step();
    if (waiting === undefined) return;
    const backlog: Step[] = [];
    this.#backlog = backlog;
    this.#drained = (async () => {
      await waiting;
      // Steps queued while one waits join the end of `backlog`, which this loop reaches too.
      for (let i = 0; i < backlog.length; i++) {
        const next = backlog[i]?.();
        if (next !== undefined) await next;
      }
      this.#backlog = undefined;
    })();
  }

  #onTimer = (): void => {
    this.tick().catch((err: unknown) => this.#fail("comm_loss check failed", err));
  };

  /** Runs inside ingest's emit: it never throws into the ingest request. */
  #onTelemetry = (event: TelemetryEvent): void => {
    this.#run(() => this.#handle(event));
  };

  /**
   * Notes the event's arrivals and evaluates it; a promise only when the store is needed (a
   * comm_loss ends, rules to read, transitions to store). Never throws nor rejects: a failure is
   * logged (the readings are stored; only their alarms are missing).
   */
  #handle(event: TelemetryEvent): Promise<void> | undefined {
    try {
      const ended = this.#noteArrivals(event);
      // An agent evaluates the deployed rules at the edge and syncs its alarms with the batch
      // (services/agents/agent-alarms.ts); evaluating its readings here too would raise twice.
      const evaluated = event.source !== "agent";
      if (ended === undefined && !(evaluated && this.#rulesMissing(event))) {
        const pending = evaluated ? this.#transitions(event, undefined) : undefined;
        return pending && this.#logged(event, this.#commit(pending));
      }
      return this.#logged(event, this.#handleSlowly(event, ended ?? [], evaluated));
    } catch (err) {
      this.#failEvent(event, err);
      return undefined;
    }
  }

  async #handleSlowly(event: TelemetryEvent, ended: readonly EndedCommLoss[], evaluated: boolean) {
    for (const e of ended) {
      const row = await clearCommLoss(this.#ctx.store, e.alarmId, e.at, e.silentSeconds);
      if (row) publishAlarms(this.#ctx, "cleared", [row]);
    }
    if (evaluated) await this.#evaluate(event);
  }

  #logged(event: TelemetryEvent, work: Promise<void>): Promise<void> {
    return work.catch((err: unknown) => this.#failEvent(event, err));
  }

  #failEvent(event: TelemetryEvent, err: unknown): void {
    this.#fail("alarm evaluation failed", err, {
      project_id: event.series[0]?.projectId,
      asset_id: event.series[0]?.assetId,
    });
  }

  /** Notes that data arrived from the event's assets; the comm_loss alarms that this ends. */
  #noteArrivals(event: TelemetryEvent): EndedCommLoss[] | undefined {
    let ended: EndedCommLoss[] | undefined;
    let assetId: string | undefined;
    for (const s of event.series) {
      if (s.assetId === assetId) continue;
      assetId = s.assetId;
      const now = this.#now();
      const previous = this.#lastSeen.get(assetId);
      this.#lastSeen.set(assetId, now);
      const alarmId = this.#openCommLoss.get(assetId);
      if (alarmId === undefined) continue;
      // Data again: comm_loss returns to normal (one write, only on this transition).
      this.#openCommLoss.delete(assetId);
      const silentSeconds = previous === undefined ? 0 : Math.max(0, Math.floor((now - previous) / 1000));
      ended ??= [];
      ended.push({ alarmId, at: new Date(now), silentSeconds });
    }
    return ended;
  }

  /** True when a project of the event has no rules cached. */
  #rulesMissing(event: TelemetryEvent): boolean {
    let projectId: string | undefined;
    for (const s of event.series) {
      if (s.projectId === projectId) continue;
      projectId = s.projectId;
      if (!this.#rulesByProject.has(projectId)) return true;
    }
    return false;
  }

  /** Reads the rules of the event's projects not cached yet, then evaluates it and stores its transitions. */
  async #evaluate(event: TelemetryEvent): Promise<void> {
    let loaded: Map<string, ProjectRules> | undefined;
    let projectId: string | undefined;
    for (const s of event.series) {
      if (s.projectId === projectId) continue;
      projectId = s.projectId;
      if (this.#rulesByProject.has(projectId) || loaded?.has(projectId)) continue;
      loaded ??= new Map();
      loaded.set(projectId, await this.#loadRules(projectId));
    }
    const pending = this.#transitions(event, loaded);
    if (pending) await this.#commit(pending);
  }

  /**
   * Each series' points in order against the rules of its variable: one state per rule and asset.
   * The hot loop, kept synchronous; `loaded`: rules read for this event and not cached.
   */
  #transitions(event: TelemetryEvent, loaded: ReadonlyMap<string, ProjectRules> | undefined) {
    let pending: Pending[] | undefined;
    for (const s of event.series) {
      const slots = (this.#rulesByProject.get(s.projectId) ?? loaded?.get(s.projectId))?.get(s.variable);
      if (slots === undefined) continue;
      for (const slot of slots) {
        for (const [ts, value] of s.points) {
          const previous = slot.states.get(s.assetId) ?? INITIAL_STATE;
          const { state, transition } = evaluate(slot.rule, previous, { value, ts });
          if (state !== previous) slot.states.set(s.assetId, state);
          if (transition) {
            pending ??= [];
            pending.push({
              rule: slot.rule,
              assetId: s.assetId,
              variable: s.variable,
              transition,
              slot,
              previous,
            });
          }
        }
      }
    }
    return pending;
  }

  async #commit(pending: Pending[]): Promise<void> {
    try {
      const stored = await persistRuleTransitions(this.#ctx.store, pending, new Date(this.#now()));
      publishAlarms(this.#ctx, "raised", stored.raised);
      publishAlarms(this.#ctx, "cleared", stored.cleared);
    } catch (err) {
      // Nothing was stored: put the states back so the next reading tries the transition again.
      for (let i = pending.length - 1; i >= 0; i--) {
        const p = pending[i];
        if (p) p.slot.states.set(p.assetId, p.previous);
      }
      throw err;
    }
  }

  /** Reads a project's enabled rules; cached unless a rule changed while they were read. */
  async #loadRules(projectId: string): Promise<ProjectRules> {
    const version = this.#rulesVersion;
    const rules = await loadEnabledRules(this.#ctx.store.alarms, projectId);
    const byVariable = new Map<string, RuleSlot[]>();
    for (const rule of rules) {
      const slot: RuleSlot = { rule, states: this.#statesOf(rule.id) };
      const list = byVariable.get(rule.variable_alias);
      if (list) list.push(slot);
      else byVariable.set(rule.variable_alias, [slot]);
    }
    if (version === this.#rulesVersion) this.#rulesByProject.set(projectId, byVariable);
    return byVariable;
  }

  #statesOf(ruleId: string): Map<string, RuleState> {
    let states = this.#states.get(ruleId);
    if (!states) {
      states = new Map();
      this.#states.set(ruleId, states);
    }
    return states;
  }

  #fail(msg: string, err: unknown, fields: Record<string, unknown> = {}): void {
    this.#ctx.logger.error(msg, {
      ...fields,
      error: err instanceof Error ? err.message : String(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
  }
}
