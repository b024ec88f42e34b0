import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeAgentDistFixture } from "../../testing/agent-dist-fixture.ts";
import { emptyAgentDist } from "../../testing/fixtures/installer-fixtures.ts";
import { TestServer } from "../../testing/harness.ts";

type Answer = { status: number; body: string; json: () => Record<string, unknown> };

/**
 * PUBLIC_URL unset (issue 28 §3): an installer carries the host name it was downloaded by, and a
 * loopback name only for a download made on the server's own machine. The requests go over real
 * HTTP from this machine (peer 127.0.0.1) with the Host header a browser elsewhere would send,
 * and the X-Forwarded-For a proxy on the server's machine adds (then the peer is that proxy).
 */
describe("the server address installers carry, PUBLIC_URL unset", () => {
  let t: TestServer;
  let admin: string;
  let project: string;
  beforeAll(async () => {
    const dist = emptyAgentDist();
    writeAgentDistFixture(dist);
    t = await TestServer.start({ AGENT_DIST_DIR: dist });
    admin = (await t.admin()).token;
    project = await t.project();
  });
  afterAll(async () => t.stop());

  /** One request to the test server with the given Host and other headers (fetch cannot set Host). */
  function send(method: string, path: string, headers: Record<string, string>): Promise<Answer> {
    const { port } = new URL(t.baseUrl);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { host: "127.0.0.1", port, method, path, headers: { authorization: `Bearer ${admin}`, ...headers } },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            body += chunk;
          });
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              body,
              json: () => JSON.parse(body) as Record<string, unknown>,
            }),
          );
        },
      );
      req.on("error", reject);
      req.end();
    });
  }

  const scriptUrl = (body: string) => /^CAUDAL_SERVER_URL='([^']*)'$/m.exec(body)?.[1];
  const codes = async () =>
    (await t.request<unknown[]>(`/api/edge/projects/${project}/enrollment-codes`, { token: admin })).body
      .length;

  it("a host name other than localhost: the script, the MSI build and the address all carry it", async () => {
    const host = "caudal.plant.local:8080";
    const script = await send("GET", `/api/edge/projects/${project}/linux-install`, { host });
    expect(script.status).toBe(200);
    expect(scriptUrl(script.body)).toBe("http://caudal.plant.local:8080");
    const address = await send("GET", "/api/edge/installer-address", { host });
    expect(address.status).toBe(200);
    expect(address.json()).toEqual({
      server_url: "http://caudal.plant.local:8080",
      source: "request",
      loopback: false,
    });
    const queued = await send("POST", `/api/edge/projects/${project}/build`, { host });
    expect(queued.status).toBe(202);
    const build = await t.request<{ server_url: string }>(
      `/api/edge/projects/${project}/builds/${queued.json().build_id}`,
      { token: admin },
    );
    expect(build.body.server_url).toBe("http://caudal.plant.local:8080");
  });

  it("localhost through a proxy on this machine: refused with 409 naming PUBLIC_URL, and no code is issued", async () => {
    const before = await codes();
    const proxied = { host: "localhost:8080", "x-forwarded-for": "10.20.30.40" };
    for (const [method, path] of [
      ["GET", `/api/edge/projects/${project}/linux-install`],
      ["GET", `/api/edge/projects/${project}/installer`],
      ["POST", `/api/edge/projects/${project}/build`],
      ["POST", `/api/edge/projects/${project}/rebuild`],
      ["GET", "/api/edge/installer-address"],
    ] as const) {
      const res = await send(method, path, proxied);
      expect(res.status, path).toBe(409);
      expect(res.json(), path).toMatchObject({ error: "Conflict" });
      expect(String(res.json().message), path).toContain("set PUBLIC_URL");
      expect(res.body, path).not.toContain("cen_");
    }
    // Forwarded (RFC 7239) and 127.0.0.1 are the same case.
    const forwarded = await send("GET", `/api/edge/projects/${project}/linux-install`, {
      host: "127.0.0.1:8080",
      forwarded: "for=10.20.30.40",
    });
    expect(forwarded.status).toBe(409);
    expect(await codes()).toBe(before);
  });

  it("localhost from this machine itself: kept, and the address says it is loopback", async () => {
    const script = await send("GET", `/api/edge/projects/${project}/linux-install`, {
      host: "localhost:8080",
    });
    expect(script.status).toBe(200);
    expect(scriptUrl(script.body)).toBe("http://localhost:8080");
    const address = await send("GET", "/api/edge/installer-address", { host: "localhost:8080" });
    expect(address.json()).toEqual({
      server_url: "http://localhost:8080",
      source: "request",
      loopback: true,
    });
  });
});

describe("the server address installers carry, PUBLIC_URL set", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await TestServer.start({ PUBLIC_URL: "https://caudal.example.com" });
  });
  afterAll(async () => t.stop());

  it("is PUBLIC_URL, whatever the request came in on; operadores may not ask", async () => {
    const admin = (await t.admin()).token;
    const res = await t.request("/api/edge/installer-address", { token: admin });
    expect(res.body).toEqual({
      server_url: "https://caudal.example.com",
      source: "PUBLIC_URL",
      loopback: false,
    });
    const project = await t.project();
    const operador = (await t.userWithRole("operador", [project])).token;
    expect((await t.request("/api/edge/installer-address", { token: operador })).status).toBe(403);
    expect((await t.request("/api/edge/installer-address")).status).toBe(401);
  });
});
