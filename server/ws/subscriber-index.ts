import type { Interest, StreamClient } from "./stream-client.ts";

/**
 * Which clients want which project's events, so that publishing an event touches only the clients
 * that receive it (with 1,000 clients spread over many projects, most events concern few of them).
 */
export class SubscriberIndex {
  /** Clients that receive every project's events (superadmin/admin without a project_id filter). */
  readonly #everyProject = new Set<StreamClient>();
  readonly #byProject = new Map<string, Set<StreamClient>>();
  readonly #indexed = new Map<StreamClient, Interest>();

  /** True when at least one client wants this project's events. */
  wants(projectId: string): boolean {
    return this.#everyProject.size > 0 || this.#byProject.has(projectId);
  }

  forEach(projectId: string, visit: (client: StreamClient) => void): void {
    for (const client of this.#everyProject) visit(client);
    const scoped = this.#byProject.get(projectId);
    if (scoped) for (const client of scoped) visit(client);
  }

  /** (Re)indexes a client under its current interest. */
  add(client: StreamClient): void {
    this.remove(client);
    const interest = client.interest();
    this.#indexed.set(client, interest);
    if (interest === "all") {
      this.#everyProject.add(client);
      return;
    }
    for (const projectId of interest) {
      let set = this.#byProject.get(projectId);
      if (!set) {
        set = new Set();
        this.#byProject.set(projectId, set);
      }
      set.add(client);
    }
  }

  remove(client: StreamClient): void {
    const interest = this.#indexed.get(client);
    if (interest === undefined) return;
    this.#indexed.delete(client);
    if (interest === "all") {
      this.#everyProject.delete(client);
      return;
    }
    for (const projectId of interest) {
      const set = this.#byProject.get(projectId);
      set?.delete(client);
      if (set?.size === 0) this.#byProject.delete(projectId);
    }
  }
}
