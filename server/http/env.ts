import type { AuthContext } from "../services/auth/auth-context.ts";

/** Hono environment shared by every route. */
export type AppEnv = {
  Variables: {
    requestId: string;
    auth: AuthContext;
  };
};
