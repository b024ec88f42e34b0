import type { Payload } from "../../shared/mqtt/topics.ts";
import type { ServiceContext } from "../services/context.ts";
import type { AlarmNotice } from "../services/events.ts";
import { assetName, projectName } from "./names.ts";

/**
 * What happens in the field, told in one line each on the server's log: alarms raised and
 * cleared, deployments, agents coming online and going offline. Under `npm start` (LOG_FORMAT=text)
 * these are the console's news; as JSON lines they carry the ids too. Never a token.
 */
export class ActivityLog {
  readonly #ctx: ServiceContext;
  #unsubscribe: (() => void) | undefined;

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
  }

  start(): void {
    const { events } = this.#ctx;
    const onAlarm = (notice: AlarmNotice) => this.#alarm(notice);
    const onDeployment = (e: { projectId: string; message: Payload<"config"> }) => this.#deployment(e);
    const onStatus = (e: { projectId: string; status: "online" | "offline" }) => this.#agentStatus(e);
    events.on("alarm", onAlarm);
    events.on("deploymentCreated", onDeployment);
    events.on("agentStatus", onStatus);
    this.#unsubscribe = () => {
      events.off("alarm", onAlarm);
      events.off("deploymentCreated", onDeployment);
      events.off("agentStatus", onStatus);
    };
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Writes a line once the names it tells are read; a failed read is logged, never thrown. */
  #tell(line: () => Promise<void>): void {
    line().catch((err: unknown) =>
      this.#ctx.logger.warn("an activity line could not be written", {
        error: err instanceof Error ? err.message : String(err),
      }),
    );
  }

  #alarm({ event, alarm }: AlarmNotice): void {
    // Acknowledgements are people's own actions, already in the audit log.
    if (event !== "acknowledged") this.#tell(() => this.#alarmLine(event, alarm));
  }

  async #alarmLine(event: AlarmNotice["event"], alarm: AlarmNotice["alarm"]): Promise<void> {
    const where = alarm.asset_id ? ` on ${await assetName(this.#ctx, alarm.asset_id)}` : "";
    const severity = event === "raised" && typeof alarm.severity === "string" ? ` (${alarm.severity})` : "";
    this.#ctx.logger.info(`alarm ${event}${severity}${where}: ${alarm.message}`, {
      event: `alarm_${event}`,
      alarm_id: alarm.id,
      project_id: alarm.project_id,
      asset_id: alarm.asset_id,
    });
  }

  #deployment({ projectId, message }: { projectId: string; message: Payload<"config"> }): void {
    this.#tell(async () =>
      this.#ctx.logger.info(
        `deployment v${message.version} of ${await projectName(this.#ctx, projectId)} sent to its agent`,
        { event: "deployment", project_id: projectId, version: message.version },
      ),
    );
  }

  #agentStatus({ projectId, status }: { projectId: string; status: "online" | "offline" }): void {
    this.#tell(async () =>
      this.#ctx.logger.info(`agent of ${await projectName(this.#ctx, projectId)} is ${status}`, {
        event: `agent_${status}`,
        project_id: projectId,
      }),
    );
  }
}
