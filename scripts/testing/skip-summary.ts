import type { Reporter, TestCase, TestModule, Vitest } from "vitest/node";
import { underCi } from "./require-peer.ts";

export type SkippedTest = { name: string; reason: string };

/** Why a test did not run: ctx.skip(note), a missing peer (require-peer.ts), or null for none. */
function declaredReason(test: TestCase): string | null {
  const result = test.result();
  if (result.state === "skipped" && result.note) return result.note;
  return test.meta().skipReason ?? (test.options.mode === "todo" ? "todo" : null);
}

/**
 * The tests that did not run. With a name filter (-t) vitest marks every test it leaves out as
 * skipped too: those are the caller's choice, so only tests skipped with a reason count then.
 */
export function skippedTests(modules: ReadonlyArray<TestModule>, nameFilter: boolean): SkippedTest[] {
  return modules.flatMap((m) =>
    [...m.children.allTests("skipped")].flatMap((test) => {
      const reason = declaredReason(test);
      if (reason === null && nameFilter) return [];
      const name = `${m.relativeModuleId} > ${test.fullName}`;
      return [{ name, reason: reason ?? "no reason given (it.skip or describe.skip)" }];
    }),
  );
}

/** The lines printed at the end of a run: the count, then each reason with its tests. */
export function skipSummary(skipped: readonly SkippedTest[], ci: boolean): string[] {
  const byReason = Map.groupBy(skipped, (s) => s.reason);
  const lines = [`skipped: ${skipped.length}`];
  for (const [reason, tests] of byReason) {
    lines.push(`  ${reason} (${tests.length}):`);
    for (const t of tests) lines.push(`    - ${t.name}`);
  }
  if (ci && skipped.length > 0) {
    lines.push("CI=true: no test may be skipped in CI (README, `npm test`); failing the run.");
  }
  return lines;
}

/**
 * Prints the skipped tests and why at the end of the run, before vitest's own summary (listed first
 * in vitest.config.ts, so vitest's summary stays the closing lines CI reads). Under CI=true a
 * skipped test fails the run.
 */
export class SkipSummaryReporter implements Reporter {
  #nameFilter = false;

  onInit(vitest: Vitest): void {
    this.#nameFilter = vitest.config.testNamePattern !== undefined;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped = skippedTests(modules, this.#nameFilter);
    const ci = underCi();
    process.stdout.write(`\n${skipSummary(skipped, ci).join("\n")}\n`);
    if (ci && skipped.length > 0) process.exitCode = 1;
  }
}
