import type {
  AssetType,
  DowntimeRow,
  LabResultRow,
  MeterReadingRow,
  MovementRow,
  NewDowntimeRow,
  NewLabResultRow,
  NewMeterReadingRow,
  NewMovementRow,
  NewWellTestRow,
  WellTestRow,
} from "../rows.ts";

/**
 * The kinds of operational record (ANH 0651), each named as the audit log's `entity` for it. Each
 * has its own instant, which lists filter and order by:
 * movement `timestamp`, downtime `started_at`, well_test `test_date`, lab_result `sample_date`,
 * meter_reading `read_at`.
 */
export type RecordKind = "movement" | "downtime" | "well_test" | "lab_result" | "meter_reading";

/** The stored row of each kind (tables movements, downtime, well_tests, lab_results, meter_readings). */
export type RecordRows = {
  movement: MovementRow;
  downtime: DowntimeRow;
  well_test: WellTestRow;
  lab_result: LabResultRow;
  meter_reading: MeterReadingRow;
};

export type NewRecordRows = {
  movement: NewMovementRow;
  downtime: NewDowntimeRow;
  well_test: NewWellTestRow;
  lab_result: NewLabResultRow;
  meter_reading: NewMeterReadingRow;
};

/** A listed record and the id of the record of its kind whose `supersedes` names it (null: current). */
export type ListedRecord<K extends RecordKind> = { row: RecordRows[K]; supersededBy: string | null };

export type RecordListFilter = {
  /** Only records of these projects; absent: of every project. An empty list matches nothing. */
  projectIds?: readonly string[] | undefined;
  /** Inclusive lower bound on the kind's instant. */
  from?: Date | undefined;
  /** Exclusive upper bound on the kind's instant: [from, to) never counts a record in two days. */
  to?: Date | undefined;
  /** At most this many records (the newest). */
  limit: number;
};

/**
 * Operational records: movements, downtime, well tests, lab results, meter readings.
 *
 * Append-only (API MPMS 21.1 §5: quantity records kept original and unaltered): this port has no
 * update and no delete, and the database refuses UPDATE and DELETE of these tables with triggers,
 * except that `created_by` may be set to NULL (its user was deleted) and rows go when their project
 * or asset is deleted (the foreign keys cascade). A correction is a new row whose `supersedes`
 * names the row it replaces; a unique index on `supersedes`, per table, keeps every chain linear.
 */
export type RecordStore = {
  /**
   * Inserts `row` exactly as given (the caller chooses `id` and `created_at`) and returns it as
   * stored. Throws the engine's unique-constraint error when another row of the kind already
   * supersedes `row.supersedes` (callers check first with `correctionTarget`, in the same
   * transaction).
   */
  append<K extends RecordKind>(kind: K, row: NewRecordRows[K]): Promise<RecordRows[K]>;
  /**
   * Records of `kind` that match `filter`, corrections and the records they supersede alike,
   * ordered by the kind's instant descending, then `created_at` descending, then `id` descending
   * in byte order (SQLite's BINARY collation; on PostgreSQL `COLLATE "C"`); the first
   * `filter.limit` of them. Each comes with the id of the row that supersedes it, looked up among
   * all rows of the kind (not only the listed ones or the filter's projects), read in the same
   * snapshot as the list.
   */
  list<K extends RecordKind>(kind: K, filter: RecordListFilter): Promise<ListedRecord<K>[]>;
  /**
   * The record of `kind` with id `id` in project `projectId`, seen as a correction target:
   * undefined when there is no such record (unknown id, another project, or a record of another
   * kind); otherwise `supersededBy`, the id of the row of the kind whose `supersedes` is `id`, or
   * null while it is current. Inside a transaction it holds the target until the transaction
   * ends: a concurrent correction of the same record waits, then sees this one's row.
   */
  correctionTarget(
    kind: RecordKind,
    id: string,
    projectId: string,
  ): Promise<{ supersededBy: string | null } | undefined>;
  /**
   * The project's current records of `kind` (those no record of the kind supersedes) within
   * [from, to): a downtime entry when it overlaps the window (`started_at` < to, and `ended_at`
   * null or > from), a record of another kind when its instant lies in it. Ordered by the kind's
   * instant ascending, then id ascending in byte order (SQLite's BINARY collation; on PostgreSQL
   * `COLLATE "C"`).
   */
  currentIn<K extends RecordKind>(kind: K, projectId: string, from: Date, to: Date): Promise<RecordRows[K][]>;
  /**
   * Meter `meterId`'s newest current reading in project `projectId` (one no reading supersedes)
   * read at or before `at`: of those, the first by `read_at` descending, then id descending in
   * byte order; undefined when there is none.
   */
  meterReadingAtOrBefore(projectId: string, meterId: string, at: Date): Promise<MeterReadingRow | undefined>;
  /**
   * The type of asset `assetId` when it belongs to project `projectId`; undefined otherwise.
   * Inside a transaction the asset cannot be deleted until it ends (FOR KEY SHARE on PostgreSQL),
   * and it waits for a delete under way (FieldStore.assetRecordCounts), then finds no asset.
   */
  assetTypeIn(projectId: string, assetId: string): Promise<AssetType | undefined>;
};
