import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

/**
 * `caudal-agent trust <file>`: trusts an OPC UA server's certificate by copying it into
 * `<data_dir>/pki/trusted/certs/` (node-opcua's layout), where the driver's next connection
 * attempt finds it: no restart. The file is usually one the agent put in `pki/rejected/`.
 * Returns the path written.
 */
export function trustCertificate(dataDir: string, file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new Error(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const pem = bytes.toString("latin1").includes("-----BEGIN CERTIFICATE-----");
  // DER: an X.509 certificate is an ASN.1 SEQUENCE (0x30) with a long-form length (0x82 for 256 B–64 KiB).
  const der = bytes.length > 4 && bytes[0] === 0x30 && bytes[1] === 0x82;
  if (!pem && !der) throw new Error(`${file} is not a certificate (PEM or DER)`);
  const dir = join(dataDir, "pki", "trusted", "certs");
  mkdirSync(dir, { recursive: true });
  const target = join(dir, basename(file));
  copyFileSync(file, target);
  return target;
}
