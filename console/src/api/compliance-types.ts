/** The API's shapes for ANH reports and the audit log (GET /docs/openapi.yaml has them all). */

export type ReportStatus = "pending" | "generated" | "submitted";

export type AnhReport = {
  id: string;
  project_id: string;
  report_date: string;
  period_start: string;
  period_end: string;
  status: ReportStatus;
  /** SHA-384 (hex) of the stored bytes; null while pending. */
  hash_sha384: string | null;
  created_at: string;
  version: number;
  supersedes: string | null;
  generated_at: string | null;
  submitted_at: string | null;
  submitted_by: string | null;
};

/** The parts of the report content (docs/anh-report.md) that the preview shows. */
export type ReportContent = {
  movements: {
    count: number;
    totals_bbls: Record<"production" | "transfer" | "injection" | "flare" | "loss", number>;
  };
  downtime: { count: number; total_hours_lost: number };
  well_tests: { count: number };
  lab_results: { count: number };
  meter_readings: { count: number };
  telemetry: {
    series_count: number;
    samples_received: number;
    samples_expected: number;
    assets: {
      asset_id: string;
      asset_name: string;
      variables: { variable: string; poll_interval_ms: number | null }[];
    }[];
  };
  alarms: { count: number };
  data_quality: {
    complete: boolean;
    gap_count: number;
    /** Summed over every series: not minutes of the day (dataQualitySoFar reads the gaps instead). */
    gap_minutes: number;
    series_with_gaps: number;
    /** Runs of one series without readings; `end` is exclusive. */
    gaps: { asset_id: string; variable: string; start: string; end: string }[];
  };
};

export type AnhReportPreview = {
  provisional: true;
  project_id: string;
  report_date: string;
  period_start: string;
  period_end: string;
  as_of: string;
  content: ReportContent;
};

export type AuditEntry = {
  seq: number;
  id: string;
  at: string;
  user_id: string | null;
  project_id: string | null;
  entity: string;
  entity_id: string;
  action: "create" | "update" | "delete";
  before: unknown;
  after: unknown;
  prev_hash: string;
  hash: string;
};

export type AuditVerification = {
  valid: boolean;
  entries: number;
  head?: { seq: number; hash: string } | null;
  broken_at?: {
    seq: number;
    id: string | null;
    reason: "hash mismatch" | "prev_hash mismatch" | "seq gap" | "truncated";
  };
};
