import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiResponse, TestServer } from "../testing/harness.ts";

type ErrorBody = { error: string; message: string };

/** Bad input is a 400 with {error, message} (CONTRIBUTING: never a 500), naming the field when there is one. */
function expect400(res: ApiResponse<ErrorBody>, error: string, mentions?: string): void {
  expect(res.status, res.text).toBe(400);
  expect(Object.keys(res.body).sort()).toEqual(["error", "message"]);
  expect(res.body.error).toBe(error);
  expect(res.body.message.length).toBeGreaterThan(0);
  if (mentions) expect(res.body.message).toContain(mentions);
}

describe("bad input on POST /api/auth/login is a 400, never a 500", () => {
  let t: TestServer;
  const login = (init: { body?: unknown; rawBody?: string; headers?: Record<string, string> }) =>
    t.request<ErrorBody>("/api/auth/login", { method: "POST", ...init });

  beforeAll(async () => {
    t = await TestServer.start();
    await t.admin();
  });
  afterAll(async () => t.stop());

  it("malformed JSON", async () => {
    for (const rawBody of ["{bad", "{", '{"email": "a@b.c",}', "nul", "[1,"]) {
      expect400(await login({ rawBody }), "BadRequest");
    }
  });

  it("JSON that is not an object", async () => {
    for (const rawBody of ["null", "[]", '"text"', "42", "true"]) {
      expect400(await login({ rawBody }), "ValidationFailed");
    }
  });

  it("an empty body", async () => {
    expect400(await login({ rawBody: "" }), "BadRequest");
  });

  it("missing fields, each named", async () => {
    expect400(await login({ body: { password: "x" } }), "ValidationFailed", "email");
    expect400(await login({ body: { email: "root@caudal.test" } }), "ValidationFailed", "password");
    const none = await login({ body: {} });
    expect400(none, "ValidationFailed", "email");
    expect(none.body.message).toContain("password");
  });

  it("wrong types, each named", async () => {
    expect400(await login({ body: { email: 42, password: "x" } }), "ValidationFailed", "email");
    expect400(await login({ body: { email: ["a@b.c"], password: "x" } }), "ValidationFailed", "email");
    expect400(
      await login({ body: { email: "root@caudal.test", password: 12345678 } }),
      "ValidationFailed",
      "password",
    );
    expect400(
      await login({ body: { email: "root@caudal.test", password: { $ne: "" } } }),
      "ValidationFailed",
      "password",
    );
    expect400(
      await login({ body: { email: "root@caudal.test", password: "x", totp_code: 123456 } }),
      "ValidationFailed",
      "totp_code",
    );
  });

  it("malformed values", async () => {
    expect400(await login({ body: { email: "not-an-email", password: "x" } }), "ValidationFailed", "email");
    expect400(
      await login({ body: { email: "root@caudal.test", password: "x", totp_code: "12ab56" } }),
      "ValidationFailed",
      "totp_code",
    );
  });

  it("a body that is not JSON by content type: 415 UnsupportedMediaType (RFC 9110 §15.5.16)", async () => {
    for (const type of [
      "application/x-www-form-urlencoded",
      "text/plain",
      "multipart/form-data; boundary=x",
    ]) {
      const res = await login({
        rawBody: '{"email":"root@caudal.test","password":"x"}',
        headers: { "content-type": type },
      });
      expect(res.status, type).toBe(415);
      expect(res.body).toEqual({
        error: "UnsupportedMediaType",
        message: "the request body must be JSON (Content-Type: application/json)",
      });
    }
    // An authenticated JSON route too, and JSON with a charset is still JSON.
    const { token } = await t.admin();
    const form = await t.request<ErrorBody>("/api/edge/projects", {
      token,
      rawBody: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect(form.body.error).toBe("UnsupportedMediaType");
    const charset = await t.request("/api/edge/projects", {
      token,
      rawBody: '{"name":"charset"}',
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(charset.status).toBe(201);
  });
});

/** One wording for every validation message (the hook in validation.ts), never zod's raw text. */
describe("validation messages", () => {
  let t: TestServer;
  let token: string;
  beforeAll(async () => {
    t = await TestServer.start();
    token = (await t.admin()).token;
  });
  afterAll(async () => t.stop());

  const messageOf = async (path: string, init: { body?: unknown; rawBody?: string; method?: string }) => {
    const res = await t.request<ErrorBody>(path, { method: "POST", token, ...init });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toBe("ValidationFailed");
    expect(res.body.message).not.toMatch(/Invalid input|expected|received|Too (small|big)/);
    return res.body.message;
  };
  const login = (body: unknown) => messageOf("/api/auth/login", { body });
  const register = (body: Record<string, unknown>) =>
    messageOf("/api/auth/register", {
      body: { email: "new@caudal.test", name: "New", role: "operador", password: "long enough", ...body },
    });

  it("a missing field is required, whatever its own messages", async () => {
    expect(await login({})).toBe("email: is required; password: is required");
    expect(await login({ email: "root@caudal.test" })).toBe("password: is required");
    expect(await register({ email: undefined })).toBe("email: is required");
    expect(await register({ name: undefined, password: undefined })).toBe(
      "name: is required; password: is required",
    );
  });

  it("a wrong type names the type expected", async () => {
    expect(await login({ email: "root@caudal.test", password: 12345678 })).toBe("password: must be a string");
    expect(await login({ email: "root@caudal.test", password: null })).toBe("password: must be a string");
    expect(await login({ email: "root@caudal.test", password: "x", totp_code: 123456 })).toBe(
      "totp_code: must be a string",
    );
    const user = await t.userWithRole("operador");
    expect(
      await messageOf(`/api/admin/users/${user.id}/projects`, { method: "PUT", body: { project_ids: "x" } }),
    ).toBe("project_ids: must be an array");
  });

  it("a body that is not an object", async () => {
    expect(await messageOf("/api/auth/login", { rawBody: "null" })).toBe("body: must be an object");
    expect(await messageOf("/api/auth/login", { rawBody: "[]" })).toBe("body: must be an object");
  });

  it("lengths, enums and formats", async () => {
    const base = { email: "root@caudal.test", password: "x" };
    expect(await login({ ...base, recovery_code: "" })).toBe("recovery_code: must not be empty");
    expect(await login({ ...base, recovery_code: "a".repeat(65) })).toBe(
      "recovery_code: must be at most 64 characters",
    );
    expect(await register({ role: "chief" })).toBe(
      "role: must be one of superadmin, admin, supervisor, operador, anh_reader",
    );
    // Messages a schema chose stay as they are.
    expect(await register({ email: "not-an-email" })).toBe("email: must be a valid email address");
    expect(await register({ password: "short" })).toBe("password: must be at least 8 characters");
  });
});
