import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { msitoolsMissing, wixlMissing } from "../../../../scripts/testing/peers.ts";
import { requirePeer } from "../../../../scripts/testing/require-peer.ts";
import { msiTable } from "../../../testing/fixtures/installer-fixtures.ts";
import { productWxs } from "./product-wxs.ts";
import { runWixl } from "./wixl.ts";
import { wixlLiteral } from "./wxs-text.ts";

const NBSP = "\u00a0";

/**
 * Project names against the real wixl (issue 28 §1): each compiles, and the MSI's ProductName is
 * the name as written, with a no-break space splitting each preprocessor construct. Names outside
 * Windows-1252 once emptied the name or crashed wixl; `$(…)` copied wixl's environment or failed.
 */
const NAMES: [name: string, shown: string][] = [
  ["$(env.DATABASE_URL)", `$${NBSP}(env.DATABASE_URL)`],
  ["$(env.JWT_SECRET)", `$${NBSP}(env.JWT_SECRET)`],
  ["$(env.TOTP_SECRET_ENCRYPTION_KEY)", `$${NBSP}(env.TOTP_SECRET_ENCRYPTION_KEY)`],
  ["$(foo.bar)", `$${NBSP}(foo.bar)`],
  ["$(sys.CURRENTDIR)", `$${NBSP}(sys.CURRENTDIR)`],
  ["$(env.JWT_SECRET", `$${NBSP}(env.JWT_SECRET`],
  ["$$(env.JWT_SECRET) $$$(var.X)", `$$${NBSP}(env.JWT_SECRET) $$$${NBSP}(var.X)`],
  ["!(loc.X) !(bind.Y)", `!${NBSP}(loc.X) !${NBSP}(bind.Y)`],
  ["<?define X=1?>", `<${NBSP}?define X=1?>`],
  ["US$ 5, a$b, $$ and $", "US$ 5, a$b, $$ and $"],
  ["Campo Ñandú – “Norte” € 50%", "Campo Ñandú – “Norte” € 50%"],
  ["＄(env.JWT_SECRET) 测试 🛢 ﬁeld Ő", `$${NBSP}(env.JWT_SECRET) ?? ? field O`],
  ["a\u200bb\u0085c", "a?b?c"],
];

const msitools = requirePeer("msitools", msitoolsMissing);

requirePeer("wixl", wixlMissing).describe("project names in the MSI (real wixl)", () => {
  let work: string;
  const secret = `wxs-leak-probe-${randomUUID()}`;
  const saved = { ...process.env };

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "caudal-wxs-text-"));
    for (const file of ["agent.exe", "winsw.exe", "service.exe.config", "service.xml", "agent.json"])
      writeFileSync(join(work, file), randomBytes(64));
    // Were the name to reach wixl's preprocessor, these would end up in the MSI.
    Object.assign(process.env, {
      DATABASE_URL: secret,
      JWT_SECRET: secret,
      TOTP_SECRET_ENCRYPTION_KEY: secret,
    });
  });
  afterAll(() => {
    for (const key of ["DATABASE_URL", "JWT_SECRET", "TOTP_SECRET_ENCRYPTION_KEY"]) {
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
    }
    if (work) rmSync(work, { recursive: true, force: true });
  });

  for (const [i, [name, shown]] of NAMES.entries()) {
    msitools.it(`${JSON.stringify(name)} compiles and reads ${JSON.stringify(shown)}`, async () => {
      const wxs = productWxs({
        projectId: randomUUID(),
        projectName: name,
        agentVersion: "1.2.3",
        sources: {
          agentExe: "agent.exe",
          serviceExe: "winsw.exe",
          serviceExeConfig: "service.exe.config",
          serviceXml: "service.xml",
          agentConfig: "agent.json",
        },
      });
      writeFileSync(join(work, `p${i}.wxs`), wxs);
      const run = await runWixl({
        cwd: work,
        wxs: `p${i}.wxs`,
        out: `p${i}.msi`,
        timeoutMs: 60_000,
        signal: new AbortController().signal,
      });
      expect(run, JSON.stringify(run)).toMatchObject({ ok: true });
      const msi = join(work, `p${i}.msi`);
      const properties = Object.fromEntries(msiTable(msi, "Property").map((r) => [r.Property, r.Value]));
      expect(properties.ProductName).toBe(`Caudal Agent (${shown})`);
      const bytes = readFileSync(msi);
      for (const encoding of ["latin1", "utf16le"] as const)
        expect(bytes.includes(Buffer.from(secret, encoding))).toBe(false);
      expect(bytes.includes(Buffer.from(work, "latin1"))).toBe(false);
    });
  }
});

it("wixlLiteral splits every construct and adds one $ to each run of them", () => {
  expect(wixlLiteral("$(a) !(b) <?c $$ d$")).toBe(`$$${NBSP}(a) !${NBSP}(b) <${NBSP}?c $$$ d$$`);
  expect(wixlLiteral("plain (text) ! ? <")).toBe("plain (text) ! ? <");
});
