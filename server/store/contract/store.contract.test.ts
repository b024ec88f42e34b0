import * as crypto from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import type { Pool } from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { postgresMissing, startPostgres, type TestPostgres } from "../../../scripts/testing/postgres.ts";
import { requirePeer } from "../../../scripts/testing/require-peer.ts";
import { connectPool, openPostgres } from "../postgres/client.ts";
import { PostgresStore } from "../postgres/postgres-store.ts";
import * as pgSchema from "../postgres/schema/index.ts";
import { openDatabase } from "../sqlite/client.ts";
import * as sqliteSchema from "../sqlite/schema/index.ts";
import { SqliteStore } from "../sqlite/sqlite-store.ts";
import { agentStoreContract } from "./testing/agent-store.contract.ts";
import { alarmStoreContract } from "./testing/alarm-store.contract.ts";
import { auditStoreContract, expectIntactChain, storedChain } from "./testing/audit-store.contract.ts";
import type { ContractBackend } from "./testing/backend.ts";
import { billingStoreContract } from "./testing/billing-store.contract.ts";
import { fieldModelContract } from "./testing/field-model.contract.ts";
import { fieldStoreContract } from "./testing/field-store.contract.ts";
import { auditEntry, newProject } from "./testing/fixtures.ts";
import { hmiStoreContract } from "./testing/hmi-store.contract.ts";
import { identityStoreContract } from "./testing/identity-store.contract.ts";
import { installerBuildStoreContract } from "./testing/installer-build-store.contract.ts";
import { mqttCredentialStoreContract } from "./testing/mqtt-credential-store.contract.ts";
import { recordStoreContract } from "./testing/record-store.contract.ts";
import { reportStoreContract } from "./testing/report-store.contract.ts";
import { telemetryStoreContract } from "./testing/telemetry-store.contract.ts";
import { telemetryWriterContract } from "./testing/telemetry-writer.contract.ts";
import { telemetryWriterPgContract } from "./testing/telemetry-writer-pg.contract.ts";
import { transactionContract } from "./testing/transaction.contract.ts";

// Audit ids are random UUIDs inside the hashed text; the cross-backend test numbers them instead.
vi.mock("node:crypto", async (original) => {
  const actual = await original<typeof import("node:crypto")>();
  return { ...actual, randomUUID: vi.fn(actual.randomUUID) };
});

const postgres = requirePeer("postgresql-15", postgresMissing);

/** A new database file in a temp dir for each test. */
const sqlite: ContractBackend = {
  name: "sqlite",
  async open() {
    const dir = mkdtempSync(join(tmpdir(), "caudal-contract-"));
    const handle = openDatabase(join(dir, "caudal.db"));
    const { db } = handle;
    const store = new SqliteStore(handle);
    return {
      store,
      seed: {
        assets: async (rows) => void db.insert(sqliteSchema.assets).values(rows).run(),
        devices: async (rows) => void db.insert(sqliteSchema.devices).values(rows).run(),
        variables: async (rows) => void db.insert(sqliteSchema.variables).values(rows).run(),
        telemetrySeries: async (rows) => void db.insert(sqliteSchema.telemetrySeries).values(rows).run(),
        rollups5m: async (rows) => void db.insert(sqliteSchema.telemetryRollup5m).values(rows).run(),
        usageCounters: async (rows) => void db.insert(sqliteSchema.usageCounters).values(rows).run(),
      },
      async close() {
        handle.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/**
 * One PostgreSQL for the file; each test gets a new database, copied from one migrated once
 * (CREATE DATABASE … TEMPLATE takes tens of milliseconds; migrating takes hundreds).
 */
function postgresBackend(server: () => { instance: TestPostgres; admin: Pool }): ContractBackend {
  let made = 0;
  return {
    name: "postgres",
    async open() {
      const { instance, admin } = server();
      const name = `contract_${++made}`;
      await admin.query(`CREATE DATABASE ${name} TEMPLATE caudal_template`);
      const pool = connectPool(instance.url.replace(/\/postgres$/, `/${name}`));
      const db = drizzle(pool, { schema: pgSchema });
      const store = new PostgresStore({ db, pool, close: () => pool.end() });
      return {
        store,
        seed: {
          assets: async (rows) => void (await db.insert(pgSchema.assets).values(rows)),
          devices: async (rows) => void (await db.insert(pgSchema.devices).values(rows)),
          variables: async (rows) => void (await db.insert(pgSchema.variables).values(rows)),
          telemetrySeries: async (rows) => void (await db.insert(pgSchema.telemetrySeries).values(rows)),
          rollups5m: async (rows) => void (await db.insert(pgSchema.telemetryRollup5m).values(rows)),
          usageCounters: async (rows) => void (await db.insert(pgSchema.usageCounters).values(rows)),
        },
        async close() {
          await store.close();
          await admin.query(`DROP DATABASE ${name}`);
        },
      };
    },
  };
}

function contracts(backend: ContractBackend): void {
  describe("FieldStore: projects", () => fieldStoreContract(backend));
  describe("FieldStore: assets, devices, variables", () => fieldModelContract(backend));
  describe("AuditStore", () => auditStoreContract(backend));
  describe("IdentityStore", () => identityStoreContract(backend));
  describe("MqttCredentialStore", () => mqttCredentialStoreContract(backend));
  describe("RecordStore", () => recordStoreContract(backend));
  describe("AlarmStore", () => alarmStoreContract(backend));
  describe("ReportStore", () => reportStoreContract(backend));
  describe("BillingStore", () => billingStoreContract(backend));
  describe("InstallerBuildStore", () => installerBuildStoreContract(backend));
  describe("TelemetryStore: reads", () => telemetryStoreContract(backend));
  describe("TelemetryStore: writer", () => telemetryWriterPgContract(backend));
  describe("TelemetryStore: writer, raw and history reads", () => telemetryWriterContract(backend));
  describe("HmiStore", () => hmiStoreContract(backend));
  describe("AgentStore", () => agentStoreContract(backend));
  describe("transactions and probe", () => transactionContract(backend));
}

describe("store contract on SQLite", () => contracts(sqlite));

postgres.describe("store contract on PostgreSQL", () => {
  let instance: TestPostgres;
  let admin: Pool;
  beforeAll(async () => {
    instance = await startPostgres();
    admin = connectPool(instance.url, { max: 1 });
    await admin.query("CREATE DATABASE caudal_template ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0");
    const template = await openPostgres(instance.url.replace(/\/postgres$/, "/caudal_template"));
    await template.close();
  });
  afterAll(async () => {
    await admin?.end();
    await instance?.stop();
  });
  const backend = postgresBackend(() => ({ instance, admin }));
  contracts(backend);

  /** Two stores (two pools) on one fresh database: one inside a transaction, one outside it. */
  async function twoStores(name: string) {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE caudal_template`);
    const url = instance.url.replace(/\/postgres$/, `/${name}`);
    const open = () => {
      const pool = connectPool(url);
      return new PostgresStore({ db: drizzle(pool, { schema: pgSchema }), pool, close: () => pool.end() });
    };
    const [inside, outside] = [open(), open()];
    return {
      inside,
      outside,
      async close() {
        await inside.close();
        await outside.close();
        await admin.query(`DROP DATABASE ${name}`);
      },
    };
  }

  it("a snapshot transaction reads one snapshot, whatever commits meanwhile", async () => {
    const { inside, outside, close } = await twoStores("snapshot_reads");
    try {
      const p = await inside.field.insertProject(newProject("before"));
      const seen = await inside.transaction(
        async (tx) => {
          const first = (await tx.field.project(p.id))?.name;
          await outside.field.updateProject(p.id, { name: "after" });
          const second = (await tx.field.project(p.id))?.name;
          return [first, second];
        },
        { snapshot: true },
      );
      expect(seen).toEqual(["before", "before"]);
      expect((await inside.field.project(p.id))?.name).toBe("after");
    } finally {
      await close();
    }
  });

  it("runs snapshot work again when a concurrent commit changed what it locks, once", async () => {
    const { inside, outside, close } = await twoStores("snapshot_retry");
    try {
      let runs = 0;
      await inside.transaction(
        async (tx) => {
          runs++;
          await tx.field.projects(); // the snapshot starts here
          // Committed after the snapshot: the audit head this transaction locks next has moved on.
          if (runs === 1) await outside.audit.append(auditEntry(1));
          await tx.audit.append(auditEntry(2));
        },
        { snapshot: true },
      );
      expect(runs).toBe(2);
      const chain = await storedChain(inside);
      expect(chain.map((e) => e.entityId)).toEqual(["e-1", "e-2"]);
      expectIntactChain(chain);
    } finally {
      await close();
    }
  });

  it("passes on a snapshot transaction's error that a new snapshot cannot cure", async () => {
    const { inside, close } = await twoStores("snapshot_gives_up");
    try {
      await inside.field.insertProject(newProject("a", { slug: "taken" }));
      let runs = 0;
      const failed = inside.transaction(
        async (tx) => {
          runs++;
          await tx.field.insertProject(newProject("b", { slug: "taken" }));
        },
        { snapshot: true },
      );
      await expect(failed).rejects.toThrow();
      expect(runs).toBe(5);
      expect((await inside.field.projects()).map((p) => p.name)).toEqual(["a"]);
    } finally {
      await close();
    }
  });

  it("chains the same entries into the same audit log as SQLite, hash for hash", async () => {
    const entries = [
      auditEntry(1, { userId: "u-1", projectId: "p-1", action: "create", before: null }),
      auditEntry(2, { after: { ü: 1, z: [0.1, 1e21, -0], a: "\u2028" } }),
      auditEntry(3, { before: undefined, after: undefined, action: "delete" }),
    ];
    const chainOn = async (open: ContractBackend["open"]) => {
      let n = 0;
      vi.mocked(crypto.randomUUID).mockImplementation(
        () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}` as const,
      );
      const t = await open();
      try {
        for (const e of entries) await t.store.audit.append(e);
        await t.store.transaction(async (tx) => tx.audit.append(auditEntry(4)));
        return await storedChain(t.store);
      } finally {
        vi.mocked(crypto.randomUUID).mockRestore();
        await t.close();
      }
    };
    const onSqlite = await chainOn(sqlite.open);
    const onPostgres = await chainOn(backend.open);
    expectIntactChain(onSqlite);
    expect(onSqlite).toHaveLength(4);
    expect(onPostgres).toStrictEqual(onSqlite);
  });
});
