import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { type ProcessSpec, Supervisor } from "./supervisor.ts";

/** A node program that prints "ready", then on SIGTERM prints "<name> stopping" and exits after `stopMs`. */
function program(
  name: string,
  options: { stopMs?: number; ignoreSigterm?: boolean; exitAfterMs?: number } = {},
) {
  const onTerm = options.ignoreSigterm
    ? `console.log("${name} ignores SIGTERM")`
    : `console.log("${name} stopping"); setTimeout(() => { console.log("${name} exits"); process.exit(0); }, ${options.stopMs ?? 0})`;
  const source = [
    `process.on("SIGTERM", () => { ${onTerm}; });`,
    `process.on("SIGINT", () => { console.log("${name} got SIGINT"); process.exit(0); });`,
    options.exitAfterMs === undefined
      ? "setInterval(() => {}, 1000);"
      : `setTimeout(() => process.exit(3), ${options.exitAfterMs});`,
    'console.log("ready");',
  ].join("\n");
  return {
    name,
    command: process.execPath,
    args: ["-e", source],
    cwd: tmpdir(),
    env: {},
  } satisfies ProcessSpec;
}

function collect() {
  const lines: string[] = [];
  return { lines, out: (line: string) => lines.push(line) };
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("Supervisor", () => {
  it("prefixes each program's lines and stops the programs in reverse start order, each after the previous ended", async () => {
    const { lines, out } = collect();
    const s = new Supervisor(out);
    s.start(program("server"));
    s.start(program("agent", { stopMs: 300 }));
    await until(() => lines.filter((l) => l.endsWith("| ready")).length === 2);
    expect(lines).toContain("server  | ready");
    const done = s.wait();
    s.stop("SIGTERM");
    expect(await done).toBe(0);
    const order = lines.filter((l) => l.endsWith("stopping") || l.endsWith("exits"));
    // The server is signalled only once the agent, which needs it to say goodbye, has exited.
    expect(order).toEqual([
      "agent   | agent stopping",
      "agent   | agent exits",
      "server  | server stopping",
      "server  | server exits",
    ]);
    expect(s.start(program("late"))).toBe(false);
  });

  it("forwards the signal it is given", async () => {
    const { lines, out } = collect();
    const s = new Supervisor(out);
    s.start(program("one"));
    await until(() => lines.includes("one     | ready"));
    const done = s.wait();
    s.stop("SIGINT");
    expect(await done).toBe(0);
    expect(lines).toContain("one     | one got SIGINT");
  });

  it("stops the programs with SIGINT when it is given SIGHUP (a closed terminal is an orderly stop)", async () => {
    const { lines, out } = collect();
    const s = new Supervisor(out);
    // No SIGHUP handler: were SIGHUP forwarded, the program would die of it (code 129).
    s.start(program("one"));
    await until(() => lines.includes("one     | ready"));
    const done = s.wait();
    s.stop("SIGHUP");
    expect(await done).toBe(0);
    expect(lines).toContain("one     | one got SIGINT");
  });

  it("kills a program that does not stop within the grace period and reports a failure", async () => {
    const { lines, out } = collect();
    const s = new Supervisor(out, { graceMs: 300 });
    s.start(program("server"));
    s.start(program("stuck", { ignoreSigterm: true }));
    await until(() => lines.filter((l) => l.endsWith("| ready")).length === 2);
    const done = s.wait();
    s.stop("SIGTERM");
    expect(await done).toBe(137);
    expect(lines).toContain("stuck did not stop within 0.3 s; killing it");
    expect(lines).toContain("server  | server stopping");
  });

  it("kills everything at once on a second stop", async () => {
    const { lines, out } = collect();
    const s = new Supervisor(out, { graceMs: 60_000 });
    s.start(program("stuck", { ignoreSigterm: true }));
    await until(() => lines.includes("stuck   | ready"));
    const done = s.wait();
    s.stop("SIGTERM");
    await until(() => lines.includes("stuck   | stuck ignores SIGTERM"));
    s.stop("SIGTERM");
    expect(await done).toBe(137);
  });

  it("stops the others when one program exits by itself, with that program's code", async () => {
    const { lines, out } = collect();
    const s = new Supervisor(out);
    s.start(program("server"));
    s.start(program("crashy", { exitAfterMs: 200 }));
    expect(await s.wait()).toBe(3);
    expect(lines).toContain("crashy exited with code 3; stopping the others");
    expect(lines).toContain("server  | server stopping");
  });

  it("reports a program that cannot be started", async () => {
    const { lines, out } = collect();
    const s = new Supervisor(out);
    s.start({ name: "ghost", command: "/nonexistent/program", args: [], cwd: tmpdir(), env: {} });
    expect(await s.wait()).toBe(127);
    expect(lines.some((l) => l.startsWith("ghost   | could not start:"))).toBe(true);
  });
});
