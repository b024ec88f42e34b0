import { randomUUID } from "node:crypto";
import type { AuditEntry } from "../../audit-chain.ts";
import type { NewProjectRow } from "../../rows.ts";
import type { NewAsset, NewDevice, NewUser, NewVariable } from "./backend.ts";

/** Instants with milliseconds, so that a backend that dropped them would be found. */
export const at = (n = 0) => new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678) + n);

export const newProject = (name: string, more: Partial<NewProjectRow> = {}): NewProjectRow => ({
  id: randomUUID(),
  name,
  slug: `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${randomUUID().slice(0, 8)}`,
  createdAt: at(),
  updatedAt: at(1),
  ...more,
});

export const newUser = (): NewUser => {
  const id = randomUUID();
  return {
    id,
    email: `${id}@example.com`,
    name: "U",
    role: "operador",
    passwordHash: "x",
    createdAt: at(),
    updatedAt: at(),
  };
};

export const newAsset = (projectId: string, name: string, id: string = randomUUID()): NewAsset => ({
  id,
  projectId,
  name,
  assetType: "well",
  createdAt: at(),
  updatedAt: at(),
});

export const newDevice = (assetId: string, name: string, id: string = randomUUID()): NewDevice => ({
  id,
  assetId,
  name,
  protocol: "modbus_tcp",
  createdAt: at(),
  updatedAt: at(),
});

export const newVariable = (deviceId: string, alias: string, id: string = randomUUID()): NewVariable => ({
  id,
  deviceId,
  alias,
  dataType: "float",
  createdAt: at(),
  updatedAt: at(),
});

export const auditEntry = (n: number, more: Partial<AuditEntry> = {}): AuditEntry => ({
  at: at(n * 1000),
  userId: null,
  projectId: null,
  entity: "project",
  entityId: `e-${n}`,
  action: "update",
  before: { n, name: "before", nested: { z: 1, a: [1.5, "ü", null] } },
  after: { n, name: "after" },
  ...more,
});

/** Byte order of UTF-8, as SQLite's BINARY collation and PostgreSQL's C locale sort text. */
export const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
