/**
 * A request a bench child received over IPC: the structured clone of what the parent sent under
 * the matching request type (scripts/bench/ipc.ts `ask`), so the type is the message contract's.
 */
export function asRequest<T>(message: Record<string, unknown>): T {
  return message as unknown as T;
}
