import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "caudal-require-peer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The repository's own vitest.config.ts (reporters included), run on the fixture only: its projects, which name the suite's files, left out. */
const config = join(dir, "vitest.config.mjs");
writeFileSync(
  config,
  `import base from ${JSON.stringify(join(root, "vitest.config.ts"))};
const { projects, ...test } = base.test;
export default { ...base, test: { ...test, include: ["scripts/testing/fixtures/missing-peer.fixture.ts"] } };
`,
);

function runFixture(env: Record<string, string>): { status: number | null; out: string } {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", ...env };
  for (const [k, v] of Object.entries(env)) if (v === "") delete childEnv[k];
  const run = spawnSync(
    process.execPath,
    [join(root, "node_modules/vitest/vitest.mjs"), "run", "--root", root, "--config", config],
    { cwd: root, env: childEnv, encoding: "utf8", timeout: 60_000 },
  );
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

const REASON = "missing peer fixture-peer: not on this machine";

describe("a test whose peer program is missing", () => {
  it("outside CI is skipped, and the run ends with the count and the reason before vitest's summary", () => {
    const { status, out } = runFixture({ CI: "" });
    expect(status, out).toBe(0);
    expect(out).toContain(`skipped: 3\n  ${REASON} (3):\n`);
    expect(out).toContain(
      "- scripts/testing/fixtures/missing-peer.fixture.ts > a suite that drives the absent peer > first",
    );
    expect(out).toContain(
      "- scripts/testing/fixtures/missing-peer.fixture.ts > a test that drives the absent peer",
    );
    expect(out).toMatch(/Tests\s+1 passed \| 3 skipped \(4\)/);
    expect(out.indexOf("skipped: 3")).toBeLessThan(out.search(/Test Files/));
  });

  it("under CI=true fails with the reason instead of skipping", () => {
    const { status, out } = runFixture({ CI: "true" });
    expect(status, out).toBe(1);
    expect(out).toContain(`CI=true, so a missing peer fails instead of skipping. ${REASON}`);
    expect(out).toContain("skipped: 0");
    expect(out).toMatch(/Tests\s+2 failed \| 1 passed \(3\)/);
  });

  it("under CI=true, any other skipped test fails the run too, naming it", () => {
    const { status, out } = runFixture({ CI: "true", FIXTURE_PLAIN_SKIP: "1" });
    expect(status, out).toBe(1);
    expect(out).toContain("skipped: 1\n  no reason given (it.skip or describe.skip) (1):\n");
    expect(out).toContain("CI=true: no test may be skipped in CI");
  });
});
