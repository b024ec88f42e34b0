import { z } from "@hono/zod-openapi";
import { nameField } from "../field-schema.ts";

export const ASSET_TYPES = ["well", "tank", "pipeline", "station", "meter"] as const;
export const assetTypeSchema = z.enum(ASSET_TYPES).openapi({ example: "well" });

export const createAssetRequest = z
  .object({
    project_id: z.uuid("must be a UUID"),
    name: nameField().openapi({ example: "RUB-0412" }),
    asset_type: assetTypeSchema,
    latitude: z
      .number()
      .min(-90, "must be between -90 and 90")
      .max(90, "must be between -90 and 90")
      .nullable()
      .optional()
      .openapi({ description: "WGS 84 decimal degrees", example: 3.9714 }),
    longitude: z
      .number()
      .min(-180, "must be between -180 and 180")
      .max(180, "must be between -180 and 180")
      .nullable()
      .optional()
      .openapi({ description: "WGS 84 decimal degrees", example: -71.6932 }),
  })
  .superRefine((v, issue) => {
    // A position needs both coordinates; one alone cannot be placed on a map or in a report.
    const hasLat = v.latitude !== undefined && v.latitude !== null;
    const hasLon = v.longitude !== undefined && v.longitude !== null;
    if (hasLat !== hasLon) {
      issue.addIssue({
        code: "custom",
        path: [hasLat ? "longitude" : "latitude"],
        message: "latitude and longitude must be given together",
      });
    }
  })
  .openapi("CreateAssetRequest", {
    description: "Create body; PUT takes the same body and replaces (omitted coordinates become null).",
  });

export const assetSchema = z
  .object({
    id: z.uuid(),
    project_id: z.uuid(),
    name: z.string(),
    asset_type: assetTypeSchema,
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi("EdgeAsset");
