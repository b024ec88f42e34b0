import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { AppError } from "../../errors.ts";

/** The Linux install script, with @NAME@ placeholders (installers/linux/linux-install.sh). */
export const LINUX_INSTALL_TEMPLATE = fileURLToPath(
  new URL("../../../installers/linux/linux-install.sh", import.meta.url),
);
/** The agent's unit file, which the script installs as it is in the repository. */
export const AGENT_UNIT_FILE = fileURLToPath(
  new URL("../../../systemd/caudal-agent.service", import.meta.url),
);

export type InstallFiles = { template: string; unit: string };

let cached: InstallFiles | undefined;

/** Both files, read on first use and kept: they change only with a new release of the server. */
export function installFiles(): InstallFiles {
  if (cached) return cached;
  try {
    cached = {
      template: readFileSync(LINUX_INSTALL_TEMPLATE, "utf8"),
      unit: readFileSync(AGENT_UNIT_FILE, "utf8"),
    };
  } catch (err) {
    throw new AppError(
      "Unavailable",
      `this server cannot read the Linux install script's files (${err instanceof Error ? err.message : String(err)}); its installation is incomplete`,
    );
  }
  return cached;
}

/** A POSIX sh single-quoted word holding exactly `value`. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * Fills the template's placeholders: `words` become single-quoted shell words (`NAME=@NAME@`),
 * `blocks` are inserted as they are inside the template's quoted here-documents, whose delimiters
 * all start with CAUDAL_END, so a block may not hold such a line. Every placeholder must be given.
 */
export function renderTemplate(
  template: string,
  words: Record<string, string>,
  blocks: Record<string, string>,
): string {
  for (const [name, text] of Object.entries(blocks))
    if (/^CAUDAL_END/m.test(text)) throw new Error(`block ${name} holds a here-document delimiter`);
  return template.replace(/@([A-Z][A-Z0-9_]*)@/g, (_, name: string) => {
    const word = words[name];
    if (word !== undefined) return shellQuote(word);
    const block = blocks[name];
    if (block !== undefined) return block.replace(/\n+$/, "");
    throw new Error(`no value for the placeholder @${name}@`);
  });
}
