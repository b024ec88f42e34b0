import { z } from "zod";
import { hasControlCharacters } from "./field-problem.ts";

/** IANA-registered opc.tcp port (OPC UA Part 6 §7.2). */
export const OPC_UA_DEFAULT_PORT = 4840;

/** OPC UA Part 4 §7.20 MessageSecurityMode. */
export const OPC_UA_SECURITY_MODES = ["None", "Sign", "SignAndEncrypt"] as const;
/** OPC UA Part 7 security policies this agent offers (Basic128Rsa15 and Basic256 are deprecated). */
export const OPC_UA_SECURITY_POLICIES = [
  "None",
  "Basic256Sha256",
  "Aes128_Sha256_RsaOaep",
  "Aes256_Sha256_RsaPss",
] as const;

const loginText = (max: number) =>
  z
    .string()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`)
    .refine((v) => !hasControlCharacters(v), "must not contain control characters");

/**
 * OPC UA device settings. Parsing applies the defaults, so the output is the effective settings.
 * `password` is write-only: the API stores it sealed and sends it to the agent only inside the
 * deployment; `password_set` (what responses show instead) is accepted and ignored on input so
 * that a client can send back what it read.
 */
export const opcUaSettingsSchema = z
  .strictObject({
    security_mode: z.enum(OPC_UA_SECURITY_MODES).default("None").describe("message security mode"),
    security_policy: z
      .enum(OPC_UA_SECURITY_POLICIES)
      .optional()
      .describe(
        "None with mode None (its default); another with Sign or SignAndEncrypt (default Basic256Sha256)",
      ),
    endpoint_path: z
      .string()
      .max(255, "must be at most 255 characters")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
      .regex(/^(\/[^\s\x00-\x1f\x7f]*)?$/, 'must be empty or a path starting with "/" (no whitespace)')
      .default("")
      .describe("path of the endpoint URL: opc.tcp://<host>:<port><endpoint_path>"),
    username: loginText(255).nullable().default(null).describe("user login; null for anonymous"),
    password: z.string().max(1024, "must be at most 1024 characters").nullable().optional().meta({
      writeOnly: true,
      description:
        "write-only: stored encrypted, never returned; omitted keeps the stored one, null clears it",
    }),
    trust_on_first_use: z
      .boolean()
      .default(false)
      .describe("accept and pin the server certificate the first time it is seen"),
    password_set: z
      .boolean()
      .optional()
      .meta({ readOnly: true, description: "whether a password is stored" }),
  })
  .superRefine((s, issue) => {
    // Part 4 §7.20: mode None carries no signature, so only policy None fits it, and the other way round.
    const unsigned = s.security_mode === "None";
    if (s.security_policy !== undefined && unsigned !== (s.security_policy === "None")) {
      issue.addIssue({
        code: "custom",
        path: ["security_policy"],
        message: unsigned
          ? `security_mode None needs security_policy None`
          : `security_mode ${s.security_mode} needs a security policy other than None`,
      });
    }
    if (typeof s.password === "string" && s.username === null) {
      issue.addIssue({ code: "custom", path: ["username"], message: "required when a password is given" });
    }
  })
  .transform(({ password_set: _ignored, ...s }) => ({
    ...s,
    security_policy: s.security_policy ?? (s.security_mode === "None" ? "None" : "Basic256Sha256"),
  }));

export type OpcUaSettings = z.output<typeof opcUaSettingsSchema>;

export type NodeId = {
  namespace: number | string;
  kind: "i" | "s" | "g" | "b";
  identifier: string;
};

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UINT32_MAX = 0xffff_ffff;

/**
 * A NodeId in its string form (OPC UA Part 6 §5.3.1.10): `[ns=<0..65535>;|nsu=<uri>;]` followed by
 * `i=<uint32>`, `s=<string>`, `g=<guid>` or `b=<base64>`. Examples: `ns=2;s=Well1.Pressure`, `ns=3;i=1001`.
 */
export function parseNodeId(text: string): { ok: true; value: NodeId } | { ok: false; error: string } {
  const fail = (error: string) => ({ ok: false as const, error });
  if (hasControlCharacters(text)) return fail("must not contain control characters");
  let rest = text;
  let namespace: number | string = 0;
  const ns = /^ns=(\d{1,5});/.exec(rest) ?? /^nsu=([^;]+);/.exec(rest);
  if (ns?.[1] !== undefined) {
    if (ns[0].startsWith("ns=")) {
      namespace = Number(ns[1]);
      if (namespace > 65535) return fail("the namespace index must be between 0 and 65535");
    } else namespace = ns[1];
    rest = rest.slice(ns[0].length);
  } else if (/^ns[u]?=/.test(rest)) return fail("the namespace must be ns=<0..65535>; or nsu=<uri>;");
  const kind = rest.slice(0, 2);
  const identifier = rest.slice(2);
  const bad = `is not an OPC UA NodeId (e.g. ns=2;s=Well1.Pressure or ns=3;i=1001)`;
  switch (kind) {
    case "i=":
      if (!/^\d{1,10}$/.test(identifier) || Number(identifier) > UINT32_MAX)
        return fail("a numeric identifier (i=) must be an integer between 0 and 4294967295");
      return { ok: true, value: { namespace, kind: "i", identifier } };
    case "s=":
      if (identifier.length === 0) return fail("a string identifier (s=) must not be empty");
      return { ok: true, value: { namespace, kind: "s", identifier } };
    case "g=":
      if (!GUID.test(identifier))
        return fail("a GUID identifier (g=) must look like 09087e75-8e5e-499b-954f-f2a9603db28a");
      return { ok: true, value: { namespace, kind: "g", identifier } };
    case "b=":
      if (identifier.length === 0 || !BASE64.test(identifier))
        return fail("an opaque identifier (b=) must be base64");
      return { ok: true, value: { namespace, kind: "b", identifier } };
    default:
      return fail(`"${text}" ${bad}`);
  }
}
