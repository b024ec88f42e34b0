import { describe, expect, it } from "vitest";
import { serverConfigSchema } from "../config.ts";
import { describeLocation, storeLocation } from "./location.ts";

const key = Buffer.alloc(32, 1).toString("base64");
const parse = (env: Record<string, string>) =>
  serverConfigSchema.safeParse({ TOTP_SECRET_ENCRYPTION_KEY: key, ...env });

describe("DATABASE_URL", () => {
  it("unset or empty: SQLite in DATA_DIR", () => {
    expect(storeLocation({ DATA_DIR: "/var/caudal" })).toEqual({
      engine: "sqlite",
      file: "/var/caudal/caudal.db",
    });
    expect(storeLocation({ DATA_DIR: "d", DATABASE_URL: "" })).toEqual({
      engine: "sqlite",
      file: "d/caudal.db",
    });
  });

  it("sqlite:<file> names another SQLite file; postgres:// and postgresql:// select PostgreSQL", () => {
    expect(storeLocation({ DATA_DIR: "d", DATABASE_URL: "sqlite:./x/site.db" })).toEqual({
      engine: "sqlite",
      file: "./x/site.db",
    });
    for (const url of ["postgres://u:p@db:5432/caudal", "postgresql://db/caudal"]) {
      expect(storeLocation({ DATA_DIR: "d", DATABASE_URL: url })).toEqual({ engine: "postgres", url });
    }
  });

  it("anything else is refused with the forms it takes", () => {
    for (const bad of ["mysql://db/caudal", "sqlite:", "postgres://", "./caudal.db"]) {
      const result = parse({ DATABASE_URL: bad });
      expect(result.success, bad).toBe(false);
      expect(result.error?.issues[0]?.message).toBe(
        "must be sqlite:<file> or postgres://user:password@host:port/database",
      );
    }
    expect(parse({ DATABASE_URL: "postgres://db/caudal" }).success).toBe(true);
  });

  it("is described without its password or options, for logs and /health", () => {
    const location = storeLocation({
      DATA_DIR: "d",
      DATABASE_URL: "postgres://caudal:s3cr%40t@db.example:5433/field?sslmode=require&password=x",
    });
    expect(describeLocation(location)).toBe("postgres://caudal@db.example:5433/field");
    expect(describeLocation({ engine: "sqlite", file: "d/caudal.db" })).toBe("sqlite:d/caudal.db");
  });
});
