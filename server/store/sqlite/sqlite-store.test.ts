import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NewProjectRow } from "../rows.ts";
import { type DatabaseHandle, openDatabase } from "./client.ts";
import { SqliteStore } from "./sqlite-store.ts";

const project = (name: string): NewProjectRow => {
  const now = new Date();
  return {
    id: randomUUID(),
    name,
    slug: `${name}-${randomUUID().slice(0, 8)}`,
    createdAt: now,
    updatedAt: now,
  };
};

describe("SqliteStore transactions, on a real database file", () => {
  let dir: string;
  let handle: DatabaseHandle;
  let store: SqliteStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "caudal-store-"));
    handle = openDatabase(join(dir, "caudal.db"));
    store = new SqliteStore(handle);
  });
  afterEach(() => {
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const names = async () => (await store.field.projects()).map((p) => p.name);

  it("commits everything the work wrote", async () => {
    await store.transaction(async (tx) => {
      await tx.field.insertProject(project("a"));
      await tx.field.insertProject(project("b"));
    });
    expect(await names()).toEqual(["a", "b"]);
  });

  it("rolls back everything when the work throws, and passes the error on", async () => {
    const failed = store.transaction(async (tx) => {
      await tx.field.insertProject(project("a"));
      throw new Error("refused");
    });
    await expect(failed).rejects.toThrow("refused");
    expect(await names()).toEqual([]);
    expect(handle.sqlite.inTransaction).toBe(false);
  });

  it("keeps a call from outside out of an open transaction: it runs after, and survives its rollback", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const inside = store.transaction(async (tx) => {
      await tx.field.insertProject(project("inside"));
      await gate;
      throw new Error("rolled back");
    });
    // Issued while the transaction is open (it waits on `gate`, a microtask away).
    const outside = store.field.insertProject(project("outside"));
    release();
    await expect(inside).rejects.toThrow("rolled back");
    await outside;
    expect(await names()).toEqual(["outside"]);
  });

  it("runs queued transactions one after another, in order", async () => {
    const order: string[] = [];
    await Promise.all(
      ["one", "two", "three"].map((name) =>
        store.transaction(async (tx) => {
          order.push(`begin ${name}`);
          await tx.field.insertProject(project(name));
          order.push(`end ${name}`);
        }),
      ),
    );
    expect(order).toEqual(["begin one", "end one", "begin two", "end two", "begin three", "end three"]);
    expect(await names()).toEqual(["one", "three", "two"]);
  });

  it("refuses a transaction opened from inside another", async () => {
    const nested = store.transaction(async () => store.transaction(async () => "never"));
    await expect(nested).rejects.toThrow("a transaction is already open here");
  });

  it("rolls back work that waited on the event loop (a timer), so no other writer can land inside it", async () => {
    const slow = store.transaction(async (tx) => {
      await tx.field.insertProject(project("slow"));
      await new Promise((resolve) => setTimeout(resolve, 5));
    });
    await expect(slow).rejects.toThrow("awaited something other than its ports");
    expect(await names()).toEqual([]);
  });

  it("answers the health probe", async () => {
    await expect(store.probe()).resolves.toBeUndefined();
    handle.close();
    await expect(store.probe()).rejects.toThrow();
    handle = openDatabase(join(dir, "caudal.db"));
  });
});
