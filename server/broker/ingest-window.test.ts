import type { Client } from "aedes";
import { describe, expect, it } from "vitest";
import { IngestWindow } from "./ingest-window.ts";

/** Work that finishes when the test says so. */
function work() {
  let finish = () => {};
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return { done, finish };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

// The window keys its state by the connection object only.
const connection = () => ({}) as Client;

describe("IngestWindow", () => {
  it("lets a connection read on at once while its batches waiting for their commit fit the window", () => {
    const window = new IngestWindow(1_000);
    const client = connection();
    const readOn: number[] = [];
    for (let i = 0; i < 4; i++) window.admit(client, 250, work().done, () => readOn.push(i));
    expect(readOn).toEqual([0, 1, 2, 3]);
  });

  it("stops reading past the window and reads on once earlier batches are committed, in order", async () => {
    const window = new IngestWindow(900);
    const client = connection();
    const readOn: number[] = [];
    const first = work();
    const second = work();
    window.admit(client, 600, first.done, () => readOn.push(1));
    window.admit(client, 300, second.done, () => readOn.push(2));
    window.admit(client, 300, work().done, () => readOn.push(3));
    window.admit(client, 100, work().done, () => readOn.push(4));
    expect(readOn).toEqual([1, 2]);
    second.finish();
    await settle();
    // 600 + 300 + 100 still waiting: over the window.
    expect(readOn).toEqual([1, 2]);
    first.finish();
    await settle();
    expect(readOn).toEqual([1, 2, 3, 4]);
  });

  it("always admits a lone batch, even one larger than the window, and counts connections apart", async () => {
    const window = new IngestWindow(1_000);
    const [a, b] = [connection(), connection()];
    const readOn: string[] = [];
    const large = work();
    window.admit(a, 5_000, large.done, () => readOn.push("a1"));
    window.admit(b, 900, work().done, () => readOn.push("b1"));
    window.admit(a, 10, work().done, () => readOn.push("a2"));
    expect(readOn).toEqual(["a1", "b1"]);
    large.finish();
    await settle();
    expect(readOn).toEqual(["a1", "b1", "a2"]);
  });

  it("counts a batch whose handling failed as finished", async () => {
    const window = new IngestWindow(100);
    const client = connection();
    const readOn: number[] = [];
    let fail = (_err: Error) => {};
    const failing = new Promise<void>((_, reject) => {
      fail = reject;
    });
    window.admit(client, 100, failing, () => readOn.push(1));
    window.admit(client, 50, work().done, () => readOn.push(2));
    fail(new Error("commit failed"));
    await settle();
    expect(readOn).toEqual([1, 2]);
  });
});
