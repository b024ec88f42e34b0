import { badRequest } from "../../../http/errors.ts";
import { optionalText, type ProjectInput } from "../inputs.ts";
import { canonicalTimeZone, DEFAULT_TIMEZONE } from "../timezone.ts";

/** The writable columns of a project from a create/replace body; omitted fields take their defaults. */
export function projectColumns(input: ProjectInput) {
  const timezone = canonicalTimeZone(input.timezone ?? DEFAULT_TIMEZONE);
  if (!timezone) throw badRequest(`timezone: unknown IANA time zone "${input.timezone}"`);
  return {
    name: input.name.trim(),
    description: optionalText(input.description),
    location: optionalText(input.location),
    timezone,
    isActive: input.is_active ?? true,
    autoDeploy: input.auto_deploy ?? true,
  };
}
