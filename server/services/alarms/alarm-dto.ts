import type { AlarmRow } from "../../store/rows.ts";
import type { AlarmEventDto } from "../events.ts";

export type { AlarmRow };

/**
 * Spec §2 AlarmEvent, plus the ISA-18.2 life-cycle fields: `active` (false once returned to
 * normal), returned_at, acknowledged_at / acknowledged_by, and the rule and severity behind it.
 */
export type AlarmDto = AlarmEventDto & {
  rule_id: string | null;
  severity: AlarmRow["severity"];
  active: boolean;
  returned_at: string | null;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  source: AlarmRow["source"];
};

export function toAlarmDto(row: AlarmRow): AlarmDto {
  return {
    id: row.id,
    project_id: row.projectId,
    asset_id: row.assetId,
    rule_id: row.ruleId,
    variable: row.variable,
    value: row.value,
    alarm_type: row.alarmType,
    severity: row.severity,
    message: row.message,
    acknowledged: row.acknowledged,
    timestamp: row.timestamp.toISOString(),
    active: row.active,
    returned_at: row.returnedAt?.toISOString() ?? null,
    acknowledged_at: row.acknowledgedAt?.toISOString() ?? null,
    acknowledged_by: row.acknowledgedBy,
    source: row.source,
  };
}
