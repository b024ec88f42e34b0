import type { ApiClient } from "../api/api-client.ts";
import type { Project } from "../api/types.ts";

/** The projects the user may see (GET /api/edge/projects), read once per session and shared by the pages. */
export class ProjectDirectory {
  readonly #api: ApiClient;
  #list: Promise<Project[]> | null = null;

  constructor(api: ApiClient) {
    this.#api = api;
  }

  list(): Promise<Project[]> {
    this.#list ??= this.#api.get<Project[]>("/api/edge/projects").catch((err: unknown) => {
      this.#list = null;
      throw err;
    });
    return this.#list;
  }

  async get(id: string): Promise<Project | undefined> {
    return (await this.list()).find((p) => p.id === id);
  }

  forget(): void {
    this.#list = null;
  }
}
