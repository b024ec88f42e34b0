import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const script = fileURLToPath(new URL("./install-agent.sh", import.meta.url));
const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "caudal-install-"));
  dirs.push(d);
  return d;
};

function writeConfig(dir: string, overrides: Record<string, unknown> = {}): string {
  const file = join(dir, "agent.json");
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      mqtt_url: "mqtt://caudal.example:1883",
      project_id: randomUUID(),
      agent_token: "cat_0123456789abcdef0123456789abcdef",
      data_dir: "/somewhere/else",
      ...overrides,
    }),
  );
  return file;
}

describe("installers/linux/install-agent.sh (staged with --root)", () => {
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("refuses an invalid configuration, naming the field, before touching anything", async () => {
    const work = temp();
    const root = temp();
    const config = writeConfig(work, { project_id: "not-a-uuid" });
    const failed = await run("bash", [script, "--config", config, "--root", root]).catch(
      (err: { code: number; stderr: string }) => err,
    );
    expect("code" in failed ? failed.code : 0).toBe(1);
    expect("stderr" in failed ? failed.stderr : "").toContain("project_id");
    expect(existsSync(join(root, "opt"))).toBe(false);
  });

  it("stages the agent, its config (0640, data_dir forced), Node and the systemd unit", async () => {
    const work = temp();
    const root = temp();
    const config = writeConfig(work);
    const { stdout } = await run("bash", [script, "--config", config, "--root", root, "--serial"], {
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout).toContain("staged under");
    const installed = JSON.parse(readFileSync(join(root, "etc/caudal-agent/agent.json"), "utf8")) as {
      data_dir: string;
    };
    expect(installed.data_dir).toBe("/var/lib/caudal-agent");
    expect(statSync(join(root, "etc/caudal-agent/agent.json")).mode & 0o777).toBe(0o640);
    expect(existsSync(join(root, "opt/caudal/agent/main.ts"))).toBe(true);
    expect(existsSync(join(root, "opt/caudal/node_modules/mqtt"))).toBe(true);
    // Production install: no dev tools.
    expect(existsSync(join(root, "opt/caudal/node_modules/vitest"))).toBe(false);
    expect(readlinkSync(join(root, "usr/local/bin/node"))).toMatch(/node$/);
    const unit = readFileSync(join(root, "etc/systemd/system/caudal-agent.service"), "utf8");
    expect(unit).toMatch(/^ExecStart=\/usr\/local\/bin\/node .*agent\/main\.ts$/m);
    expect(unit).toMatch(/^SupplementaryGroups=dialout$/m);
  }, 240_000);
});
