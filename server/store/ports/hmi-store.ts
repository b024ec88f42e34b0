import type { DataType } from "../../../shared/field/data-types.ts";
import type { ProjectRow } from "../rows.ts";

/** What the HMI namespaces publish of one project, read in one consistent snapshot. */
export type HmiFieldModelRows = {
  /** The agent's last health report, as stored (null before the first). */
  healthReport: ProjectRow["lastHealthReport"];
  /** The project's assets, by created_at then id. */
  assets: { id: string; name: string }[];
  /**
   * The enabled variables of the assets' enabled devices, by device name, device id, then alias
   * (byte order).
   */
  variables: {
    assetId: string;
    alias: string;
    dataType: DataType;
    scaleFactor: number | null;
    unit: string | null;
  }[];
  /** The newest committed reading of each of the project's series that has one (any order). */
  latest: { assetId: string; variable: string; ts: number; value: number }[];
  /** Assets with an active comm_loss alarm (any order). */
  commLossAssetIds: string[];
};

/** The broker's read model for SCADA HMIs (Sparkplug B and the unified namespace). */
export type HmiStore = {
  /** Undefined when the project does not exist. */
  fieldModel(projectId: string): Promise<HmiFieldModelRows | undefined>;
  /**
   * The project's next Sparkplug bdSeq, stored before it is returned so that a restart continues
   * the sequence: 0 the first time, then +1 modulo 256.
   */
  nextBdSeq(projectId: string): Promise<number>;
};
