import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Aedes, type AuthenticateError } from "aedes";
import { afterEach, describe, expect, it } from "vitest";
import { AgentStore } from "../store/agent-store.ts";
import { SyncClient } from "./sync-client.ts";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

type Line = { level: string; message: string };

/** A broker that refuses every CONNECT with `returnCode` until `accept` is set; counts them. */
async function refusingBroker(returnCode: number) {
  const state = { accept: false, attempts: 0 };
  const aedes = await Aedes.createBroker({
    authenticate: (_client, _username, _password, done) => {
      state.attempts += 1;
      if (state.accept) done(null, true);
      else done(Object.assign(new Error("refused"), { returnCode }) as AuthenticateError, false);
    },
  });
  const server: Server = createServer(aedes.handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    state,
    url: `mqtt://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function client(url: string, lines: Line[], retry: ConstructorParameters<typeof SyncClient>[0]["retry"]) {
  const dir = mkdtempSync(join(tmpdir(), "caudal-sync-client-"));
  const store = new AgentStore(dir, { maxBytes: 1 << 20, onDrop: () => {} });
  store.open();
  const sync = new SyncClient({
    mqttUrl: url,
    projectId: randomUUID(),
    agentToken: "cat_replaced",
    agentId: store.agentId,
    outbox: store.outbox,
    now: Date.now,
    onConfig: () => {},
    onRequest: () => {},
    onLog: (level, message) => lines.push({ level, message }),
    retry,
  });
  cleanups.push(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  cleanups.push(() => sync.stop());
  return sync;
}

describe("SyncClient, when the broker refuses its credentials", () => {
  // [MQTT-3.2.2-3] 4 bad user name or password, 5 not authorized.
  for (const code of [4, 5]) {
    it(`(CONNACK ${code}) retries at the slow pace, logs it again only every refusedLogEveryMs, and recovers`, async () => {
      const broker = await refusingBroker(code);
      cleanups.push(broker.close);
      const lines: Line[] = [];
      // Refused attempts 100 ms apart, doubling to 200 ms; a reminder in the log each second.
      const sync = client(broker.url, lines, {
        reconnectMs: 20,
        refusedMinMs: 100,
        refusedMaxMs: 200,
        refusedLogEveryMs: 1_000,
      });
      sync.start();
      await sleep(2_500);
      const attempts = broker.state.attempts;
      // About 13 at the refused pace; the network pace (20 ms) would make over 100.
      expect(attempts).toBeGreaterThanOrEqual(8);
      expect(attempts).toBeLessThanOrEqual(16);
      expect(sync.link.refusal?.attempts).toBe(attempts);
      expect(sync.link.state).toBe("refused");
      const said = lines.filter((l) => l.message.includes("refused this agent's credentials"));
      // At 0 s, then at about 1 s and 2 s: kept in the log, but not once per attempt.
      expect(said.length).toBeGreaterThanOrEqual(2);
      expect(said.length).toBeLessThanOrEqual(3);
      expect(said.every((l) => l.level === "error")).toBe(true);
      expect(said[1]?.message).toMatch(/\(\d+ attempts refused so far\)/);

      broker.state.accept = true;
      const deadline = Date.now() + 5_000;
      while (!sync.connected && Date.now() < deadline) await sleep(20);
      expect(sync.connected).toBe(true);
      expect(sync.link).toMatchObject({ state: "connected", refusal: null, reason: null });
      expect(lines.at(-1)?.message).toMatch(
        /accepts this agent's credentials again after \d+ refused attempts/,
      );
    });
  }
});
