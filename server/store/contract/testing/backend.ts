import type {
  assets,
  devices,
  telemetryRollup5m,
  telemetrySeries,
  usageCounters,
  variables,
} from "../../sqlite/schema/index.ts";
import type { Store } from "../../store.ts";

/** What the suites cover: every port, on both adapters. */
export type ContractStore = Store;

export type NewAsset = typeof assets.$inferInsert;
export type NewDevice = typeof devices.$inferInsert;
export type NewVariable = typeof variables.$inferInsert;
export type NewSeries = typeof telemetrySeries.$inferInsert;
export type NewRollup = typeof telemetryRollup5m.$inferInsert;
export type NewUsageCounter = typeof usageCounters.$inferInsert;

/**
 * A fresh, migrated, empty database behind a store. `seed` writes rows of tables that the ports
 * read but another writer fills (telemetry ingest: series, rollups, usage counters), and the field
 * model below projects in bulk.
 */
export type StoreUnderTest = {
  readonly store: ContractStore;
  readonly seed: {
    assets(rows: NewAsset[]): Promise<void>;
    devices(rows: NewDevice[]): Promise<void>;
    variables(rows: NewVariable[]): Promise<void>;
    telemetrySeries(rows: NewSeries[]): Promise<void>;
    rollups5m(rows: NewRollup[]): Promise<void>;
    usageCounters(rows: NewUsageCounter[]): Promise<void>;
  };
  /** Closes the store and removes its database. */
  close(): Promise<void>;
};

/** One engine the contract suites run on. */
export type ContractBackend = {
  readonly name: Store["backend"];
  open(): Promise<StoreUnderTest>;
};
