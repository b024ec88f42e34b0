/** SHA-384 (FIPS 180-4) of `bytes`, lower-case hex, by the browser's WebCrypto. */
export async function sha384Hex(bytes: ArrayBuffer | Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-384", bytes));
  let hex = "";
  for (const b of digest) hex += b.toString(16).padStart(2, "0");
  return hex;
}

export type ReportVerification = {
  status: "verified" | "mismatch";
  /** SHA-384 of the bytes received, hex. */
  computed: string;
  /** The hash the API lists for the report (hash_sha384). */
  expected: string;
};

/**
 * Whether downloaded report bytes are the ones the API hashed: the SHA-384 computed here, in the
 * browser, against the report's hash_sha384. Case is ignored (hex is hex).
 */
export async function verifyReport(
  bytes: ArrayBuffer | Uint8Array<ArrayBuffer>,
  expected: string,
): Promise<ReportVerification> {
  const computed = await sha384Hex(bytes);
  const wanted = expected.trim().toLowerCase();
  return { status: computed === wanted ? "verified" : "mismatch", computed, expected: wanted };
}
