import type { TestProject } from "vitest/node";
import { connectPool, openPostgres } from "../../server/store/postgres/client.ts";
import { TEST_TEMPLATE_DATABASE, testEngine } from "../../server/testing/test-database.ts";
import { postgresMissing, startPostgres, type TestPostgres } from "./postgres.ts";

/**
 * With CAUDAL_TEST_DATABASE=postgres, the whole run's test servers keep their data in one
 * throw-away PostgreSQL 15, started here once, each server in a database of its own copied from a
 * template migrated here once (server/testing/test-database.ts). A PostgreSQL that cannot start
 * fails the run: asking for it and not getting it is never a pass.
 */
let running: Promise<TestPostgres> | undefined;
/** Projects set up (vitest.config.ts has two, each setting up): the last one's teardown stops it. */
let users = 0;

export async function setup(project: TestProject): Promise<void> {
  if (testEngine() !== "postgres") return;
  running ??= startTemplated();
  users++;
  project.provide("testPostgresUrl", (await running).url);
}

async function startTemplated(): Promise<TestPostgres> {
  const missing = postgresMissing();
  if (missing) throw new Error(`CAUDAL_TEST_DATABASE=postgres, but PostgreSQL cannot start: ${missing}`);
  const instance = await startPostgres("test");
  try {
    const admin = connectPool(instance.url, { max: 1 });
    try {
      await admin.query(
        `CREATE DATABASE ${TEST_TEMPLATE_DATABASE} ENCODING 'UTF8' LOCALE 'C' TEMPLATE template0`,
      );
    } finally {
      await admin.end();
    }
    // Migrated once; every test server's database is a copy of it.
    const template = await openPostgres(instance.url.replace(/\/postgres$/, `/${TEST_TEMPLATE_DATABASE}`));
    await template.close();
  } catch (error) {
    await instance.stop();
    throw error;
  }
  return instance;
}

export async function teardown(): Promise<void> {
  if (--users > 0 || running === undefined) return;
  const instance = running;
  running = undefined;
  await (await instance).stop();
}
