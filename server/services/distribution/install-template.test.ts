import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { renderTemplate, shellQuote } from "./install-template.ts";

/** What `sh` makes of a rendered script: its standard output. */
function sh(script: string): string {
  const run = spawnSync("sh", ["-c", script], { encoding: "utf8" });
  expect(run.stderr).toBe("");
  return run.stdout;
}

describe("the install script template", () => {
  it("quotes a word so that sh reads back exactly the value, however hostile", () => {
    const values = ["plain", "it's", "a'b'c", "$(touch /tmp/caudal-pwned)", "`id`", "a\nb", "\\'", "", "'"];
    for (const value of values) {
      expect(sh(`V=${shellQuote(value)}; printf '%s' "$V"`)).toBe(value);
    }
  });

  it("fills words quoted and blocks as they are, and refuses a missing value or a delimiter in a block", () => {
    const template = "A=@A@\ncat <<'CAUDAL_END_X'\n@BLOCK@\nCAUDAL_END_X\n";
    const rendered = renderTemplate(template, { A: "x'y" }, { BLOCK: '{"k": "$HOME"}\n' });
    expect(rendered).toBe(`A='x'\\''y'\ncat <<'CAUDAL_END_X'\n{"k": "$HOME"}\nCAUDAL_END_X\n`);
    expect(sh(`${rendered}printf '%s' "$A"`)).toBe('{"k": "$HOME"}\nx\'y');
    expect(() => renderTemplate(template, {}, { BLOCK: "" })).toThrow("@A@");
    expect(() => renderTemplate(template, { A: "" }, { BLOCK: "x\nCAUDAL_END_X\nrm -rf /" })).toThrow(
      "delimiter",
    );
  });
});
