import type { PostgresPorts } from "../../postgres/postgres-store.ts";
import type { assets, devices, users, variables } from "../../sqlite/schema/index.ts";
import type { Store } from "../../store.ts";

/** What the suites cover: every port both adapters serve (see PostgresPorts). */
export type ContractStore = PostgresPorts &
  Pick<Store, "backend" | "probe" | "close"> & {
    transaction<T>(work: (tx: PostgresPorts) => Promise<T>): Promise<T>;
  };

export type NewUser = typeof users.$inferInsert;
export type NewAsset = typeof assets.$inferInsert;
export type NewDevice = typeof devices.$inferInsert;
export type NewVariable = typeof variables.$inferInsert;

/**
 * A fresh, migrated, empty database behind a store. `seed` and `userProjects` reach the tables
 * no port writes or reads yet (users, the field model below projects, assignments); they go to
 * the ports as the ports grow.
 */
export type StoreUnderTest = {
  readonly store: ContractStore;
  readonly seed: {
    users(rows: NewUser[]): Promise<void>;
    assets(rows: NewAsset[]): Promise<void>;
    devices(rows: NewDevice[]): Promise<void>;
    variables(rows: NewVariable[]): Promise<void>;
  };
  userProjects(): Promise<{ userId: string; projectId: string }[]>;
  /** Closes the store and removes its database. */
  close(): Promise<void>;
};

/** One engine the contract suites run on. */
export type ContractBackend = {
  readonly name: Store["backend"];
  open(): Promise<StoreUnderTest>;
};
