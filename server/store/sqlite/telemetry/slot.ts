/** A series touched by one commit. */
export type Slot = {
  id: number;
  assetId: string;
  variable: string;
  projectId: string;
  created: boolean;
  committedLastTs: number | null;
  unit: string | null;
  unitChanged: boolean;
  /** The series' roll-up watermark: stored readings before it are rolled up in this commit. */
  rolledTo: number;
  /** Stored readings at or after the watermark, left to the roll-up pass (ascending ts). */
  deferred: { ts: number[]; values: number[] } | undefined;
  /** This commit rolls up all of the series' readings it stores (see summarize). */
  rollsUp: boolean;
  /** Newest reading stored by this commit. */
  newestTs: number | null;
  newestValue: number;
};
