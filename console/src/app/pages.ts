import { agentsPage } from "../pages/agents.ts";
import { alarmsPage } from "../pages/alarms.ts";
import { auditPage } from "../pages/audit.ts";
import { billingPage } from "../pages/billing.ts";
import { configurationPage } from "../pages/configuration.ts";
import { overviewPage } from "../pages/overview.ts";
import { assetPage, projectPage } from "../pages/project.ts";
import { recordsPage } from "../pages/records.ts";
import { reportsPage } from "../pages/reports.ts";
import { signInPage } from "../pages/sign-in.ts";
import { twoFactorPage } from "../pages/two-factor.ts";
import { usersPage } from "../pages/users.ts";
import type { PageDef } from "./page.ts";

/** Shown to anyone not signed in, whatever the address. */
export const SIGN_IN: PageDef = signInPage;

/**
 * Every page after sign-in, in navigation order: the first one a role may use is its home. A new
 * page is a module under pages/ exporting a PageDef, one line here, and its i18n keys.
 */
export const PAGES: readonly PageDef[] = [
  overviewPage,
  alarmsPage,
  projectPage,
  assetPage,
  agentsPage,
  configurationPage,
  // Compliance (an anh_reader's home), then Administration.
  reportsPage,
  recordsPage,
  auditPage,
  usersPage,
  twoFactorPage,
  billingPage,
];
