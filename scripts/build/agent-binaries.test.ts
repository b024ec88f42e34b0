import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  AGENT_MANIFEST_FILE,
  AGENT_TARGETS,
  type AgentBuildManifest,
  agentArtifactFile,
  agentBuildManifestSchema,
} from "../../shared/distribution/agent-manifest.ts";
import { builtAgentBinaries } from "../testing/agent-binaries.ts";
import { buildAgentBinaries } from "./agent-binaries.ts";
import { ROOT } from "./bundle-agent.ts";

/** `npm run build:agent`'s output, checked with other programs (sha256sum, file). */
describe("npm run build:agent", () => {
  let dir: string;
  let manifest: AgentBuildManifest;
  beforeAll(async () => {
    ({ dir, manifest } = await builtAgentBinaries());
  }, 300_000);

  it("writes a manifest with the version, the commit, the build time and every target's size and SHA-256", () => {
    const onDisk = agentBuildManifestSchema.parse(
      JSON.parse(readFileSync(join(dir, AGENT_MANIFEST_FILE), "utf8")),
    );
    expect(onDisk).toEqual(manifest);
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.commit).toMatch(/^[0-9a-f]{12}$/);
    expect(manifest.node_version).toBe("24.21.0");
    expect(manifest.artifacts.map((a) => a.target)).toEqual([...AGENT_TARGETS]);
    for (const a of manifest.artifacts) {
      const file = join(dir, agentArtifactFile(a.target));
      const sum = execFileSync("sha256sum", [file], { encoding: "utf8" }).split(" ")[0];
      expect(sum).toBe(a.sha256);
      expect(readFileSync(file).length).toBe(a.bytes);
    }
  });

  it("strips the Linux executables, and each carries the SEA blob with its fuse flipped", () => {
    const fuse = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
    for (const target of AGENT_TARGETS) {
      const file = join(dir, agentArtifactFile(target));
      const kind = execFileSync("file", ["-b", file], { encoding: "utf8" });
      if (target === "windows-x64") expect(kind).toContain("PE32+ executable");
      else {
        expect(kind).toContain(target === "linux-x86_64" ? "x86-64" : "ARM aarch64");
        expect(kind).toContain(", stripped");
      }
      // postject adds the blob as an ELF note or a PE resource named NODE_SEA_BLOB.
      const bytes = readFileSync(file);
      expect(bytes.includes("NODE_SEA_BLOB")).toBe(true);
      expect(bytes.includes(ROOT)).toBe(false);
      const at = bytes.indexOf(fuse);
      expect(at).toBeGreaterThan(0);
      expect(bytes.subarray(at + fuse.length, at + fuse.length + 2).toString()).toBe(":1");
    }
  });

  it("reuses the last build when nothing it is made from changed", async () => {
    const lines: string[] = [];
    const again = await buildAgentBinaries({ log: (l) => lines.push(l) });
    expect(again.built_at).toBe(manifest.built_at);
    expect(lines.at(-1)).toMatch(/^up to date/);
    // It may first wait for another process's build of the same folder (build-lock.ts).
  }, 300_000);
});
