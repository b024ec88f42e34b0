import { afterAll, beforeAll, expect, it } from "vitest";
import { TestServer } from "../../testing/harness.ts";
let t: TestServer;
beforeAll(async () => { t = await TestServer.start({ LOG_LEVEL: "error" }, { logger: (await import("../../logger.ts")).createLogger("error", (l) => process.stderr.write(l)) }); });
afterAll(async () => t.stop());
it("smoke", async () => {
  const { token } = await t.admin();
  const p = await t.project();
  const a = await t.asset(p);
  const r = await t.request("/api/telemetry", { token, body: { asset_id: a, readings: [{ variable: "p", value: 1.5, unit: "psi" }, { variable: "t", value: 20 }] } });
  console.log(r.status, r.text);
  const r2 = await t.request("/api/telemetry", { token, body: { asset_id: a, timestamp: "2020-01-01T00:00:00Z", readings: [{ variable: "p", value: 2 }] } });
  console.log(r2.status, r2.text);
  const l = await t.request(`/api/telemetry/${a}`, { token });
  console.log(l.status, l.text);
  const h = await t.request(`/api/telemetry/${a}/history`, { token });
  console.log(h.status, h.text);
  expect(r.status).toBe(201);
});
