import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_BATCH_SIZE, DEFAULT_SAMPLE_SERIES, parseMigrateArgs, redactUrl } from "./args.ts";

const from = "--from";
const to = "--to";
const url = "postgres://caudal:s3cret@db.example:5432/caudal";

describe("caudal-server migrate arguments", () => {
  it("takes --from sqlite:<file> and --to postgres://…, with defaults", () => {
    expect(parseMigrateArgs([from, "sqlite:./data/caudal.db", to, url])).toEqual({
      help: false,
      from: "./data/caudal.db",
      to: url,
      restart: false,
      batchSize: DEFAULT_BATCH_SIZE,
      sampleSeries: DEFAULT_SAMPLE_SERIES,
    });
  });

  it("takes --flag=value, --restart, --batch-size and --sample-series", () => {
    expect(
      parseMigrateArgs([
        "--from=sqlite:/a.db",
        "--to=postgresql://h/d",
        "--restart",
        "--batch-size",
        "200",
        "--sample-series=3",
      ]),
    ).toEqual({
      help: false,
      from: "/a.db",
      to: "postgresql://h/d",
      restart: true,
      batchSize: 200,
      sampleSeries: 3,
    });
  });

  it("answers --help and -h", () => {
    expect(parseMigrateArgs(["--help"])).toEqual({ help: true });
    expect(parseMigrateArgs([from, "x", "-h"])).toEqual({ help: true });
  });

  it.each([
    [[to, url], "--from sqlite:<file> is required"],
    [[from, "sqlite:a.db"], "--to postgres://… is required"],
    [[from, "./a.db", to, url], '--from: expected sqlite:<file>, e.g. sqlite:./data/caudal.db, got "./a.db"'],
    [[from, "sqlite:", to, url], "--from: expected sqlite:<file>"],
    [
      [from, "sqlite:a.db", to, "mysql://u:pw@h/d"],
      '--to: expected a postgres:// or postgresql:// URL, got "mysql://u:***@h/d"',
    ],
    [
      [from, "sqlite:a.db", to, url, "--batch-size", "0"],
      '--batch-size: expected a whole number of at least 1, got "0"',
    ],
    [[from, "sqlite:a.db", to, url, "--sample-series", "2.5"], "--sample-series: expected a whole number"],
    [[from, "sqlite:a.db", to, url, "--force"], 'unknown argument "--force"'],
    [[from, "sqlite:a.db", from, "sqlite:b.db", to, url], "--from given twice"],
    [[from, "sqlite:a.db", to], "--to needs a value"],
  ])("refuses %j: %s", (argv, message) => {
    expect(() => parseMigrateArgs(argv)).toThrow(message);
  });

  it("never shows a URL's password", () => {
    expect(redactUrl(url)).toBe("postgres://caudal:***@db.example:5432/caudal");
    expect(redactUrl("postgres://caudal@db/caudal")).toBe("postgres://caudal@db/caudal");
  });
});

describe("npm run server -- migrate", () => {
  const run = (...argv: string[]) =>
    spawnSync(process.execPath, ["server/main.ts", "migrate", ...argv], {
      cwd: join(import.meta.dirname, "../../.."),
      encoding: "utf8",
      timeout: 30_000,
    });

  it("prints its help on stdout and exits 0", () => {
    const help = run("--help");
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("Usage: npm run server -- migrate --from sqlite:<file> --to postgres://");
    expect(help.stdout).toContain("stop the server first");
  });

  it("says what is wrong with its arguments and exits 2", () => {
    const bad = run("--from", "./data/caudal.db", "--to", url);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe(
      'caudal-server migrate: --from: expected sqlite:<file>, e.g. sqlite:./data/caudal.db, got "./data/caudal.db"\n',
    );
  });
});
