import type { SectionTab } from "../app/section-tabs.ts";

/** Compliance: ANH reports, operational records and the audit log (the pages an anh_reader has). */
export const COMPLIANCE = {
  reports: {
    path: "/compliance/reports",
    labelKey: "compliance.reports",
    requires: ["projects:read", "reports:read"],
  },
  records: {
    path: "/compliance/records",
    labelKey: "compliance.records",
    requires: ["projects:read", "records:read"],
  },
  audit: {
    path: "/compliance/audit",
    labelKey: "compliance.audit",
    requires: ["projects:read", "audit:read"],
  },
} as const satisfies Record<string, SectionTab>;

export const COMPLIANCE_TABS: readonly SectionTab[] = [
  COMPLIANCE.reports,
  COMPLIANCE.records,
  COMPLIANCE.audit,
];

/** Administration (admin and above: users:manage): users, one's own two-factor, billing. */
export const ADMINISTRATION = {
  users: { path: "/admin/users", labelKey: "admin.users", requires: ["users:manage"] },
  twoFactor: { path: "/admin/two-factor", labelKey: "admin.twoFactor", requires: ["users:manage"] },
  billing: {
    path: "/admin/billing",
    labelKey: "admin.billing",
    requires: ["users:manage", "projects:read", "billing:read"],
  },
} as const satisfies Record<string, SectionTab>;

export const ADMINISTRATION_TABS: readonly SectionTab[] = [
  ADMINISTRATION.users,
  ADMINISTRATION.twoFactor,
  ADMINISTRATION.billing,
];
