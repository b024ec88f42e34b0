/**
 * Slugs: lower-case letters, digits and single hyphens, as in URLs and MQTT topic levels. A
 * project's slug is its Sparkplug group_id and its level in the unified namespace; an asset's slug
 * (derived, never stored) is its Sparkplug device_id and UNS level.
 */
export const SLUG_MAX = 64;
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_RULE = "lower-case letters, digits and single hyphens, such as campo-rubiales-4";

/**
 * A name's slug: accents dropped (NFKD), lower-cased, every run of other characters one "-", at
 * most SLUG_MAX characters. Empty when the name has no letter or digit (the caller picks a fallback).
 */
export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, SLUG_MAX)
    .replace(/^-+|-+$/g, "");
}

/**
 * Sparkplug edge node and host ids as Caudal accepts them: 1–64 letters, digits, `.`, `_` or `-`
 * (Sparkplug B only asks for characters MQTT allows in a topic level [tck-id-intro-edge-node-id-chars];
 * this stricter set also reads well in a URL).
 */
export const SPARKPLUG_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const SPARKPLUG_ID_RULE = "1–64 letters, digits, '.', '_' or '-'";
