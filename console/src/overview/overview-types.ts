import type {
  DashboardOverview as Overview,
  ProjectOverview as Project,
} from "../../../shared/dashboard/overview.ts";
import type { Alarm } from "../api/types.ts";

/** GET /api/dashboard/overview, whose shape is shared with the server (shared/dashboard/overview.ts). */
export type DashboardOverview = Overview<Alarm>;
export type ProjectOverview = Project<Alarm>;
