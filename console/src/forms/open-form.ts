import { type FieldErrors, refusalOf } from "./field-errors.ts";
import { type FieldSpec, type FormValues, formBody } from "./form-body.ts";

/** A form open on the page: what it edits (`target`), what its inputs hold, and the API's refusal. */
export type OpenForm<T> = { target: T; values: FormValues; errors: FieldErrors | null; busy: boolean };

export function openForm<T>(target: T, values: FormValues): OpenForm<T> {
  return { target, values, errors: null, busy: false };
}

/**
 * Sends the form's body through `call` (one API request). True when the API accepted it; false
 * with the API's messages on the form when it refused. `update` re-renders (busy, then refused).
 */
export async function submitForm<T>(
  form: OpenForm<T>,
  specs: readonly FieldSpec[],
  values: FormValues,
  call: (body: Record<string, unknown>) => Promise<unknown>,
  update: () => void,
): Promise<boolean> {
  form.values = values;
  form.busy = true;
  form.errors = null;
  update();
  try {
    await call(formBody(specs, values));
    return true;
  } catch (err) {
    form.errors = refusalOf(
      err,
      specs.map((s) => s.name),
    );
    return false;
  } finally {
    form.busy = false;
  }
}
