import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SERVER_NODE_OPTIONS, withServerNodeOptions } from "./node-options.ts";

const MB = 1024 * 1024;
const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");

/** The young generation's size after a churn of short-lived objects, in a node started with `env`. */
function newSpaceAfterChurn(env: NodeJS.ProcessEnv): number {
  const churn = [
    "let keep = [];",
    "for (let i = 0; i < 3e7; i++) { const o = { i, a: [i] }; if (i % 20 === 0) keep.push(o); if (keep.length > 1e6) keep = []; }",
    'const s = require("node:v8").getHeapSpaceStatistics().find((x) => x.space_name === "new_space");',
    "console.log(s.space_size);",
  ].join("\n");
  const run = spawnSync(process.execPath, ["-e", churn], { env, encoding: "utf8" });
  expect(run.stderr).toBe("");
  return Number(run.stdout);
}

describe("caudal-server's Node options", () => {
  it("keep the young generation at 64 MB (two 32 MB semi-spaces) under a churn that grows it past that", () => {
    const path = { PATH: process.env.PATH ?? "" };
    expect(newSpaceAfterChurn(withServerNodeOptions(path))).toBeLessThanOrEqual(64 * MB);
    // Control: the same churn with room to grow (V8's own default depends on the machine's memory).
    expect(newSpaceAfterChurn({ ...path, NODE_OPTIONS: "--max-semi-space-size=128" })).toBeGreaterThan(
      64 * MB,
    );
  });

  it("are what the systemd unit and the Docker image start the server with", () => {
    expect(read("systemd/caudal-server.service")).toMatch(
      new RegExp(`^Environment=NODE_OPTIONS=${SERVER_NODE_OPTIONS}$`, "m"),
    );
    expect(read("Dockerfile")).toMatch(new RegExp(`^ENV NODE_OPTIONS=${SERVER_NODE_OPTIONS}$`, "m"));
  });

  it("come first in NODE_OPTIONS, so that options given there win", () => {
    expect(withServerNodeOptions({}).NODE_OPTIONS).toBe(SERVER_NODE_OPTIONS);
    expect(withServerNodeOptions({ NODE_OPTIONS: " --cpu-prof " }).NODE_OPTIONS).toBe(
      `${SERVER_NODE_OPTIONS} --cpu-prof`,
    );
  });
});
