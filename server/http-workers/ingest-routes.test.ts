import { describe, expect, it } from "vitest";
import { firstRequestKind, isIngestRequest } from "./ingest-routes.ts";

const kind = (text: string) => firstRequestKind(Buffer.from(text, "latin1"));

describe("which connections go to a worker thread", () => {
  it("those whose first request line is POST /api/telemetry or /api/telemetry/batch", () => {
    expect(kind("POST /api/telemetry HTTP/1.1\r\nHost: x\r\n")).toBe("ingest");
    expect(kind("POST /api/telemetry/batch HTTP/1.1\r\n")).toBe("ingest");
    expect(kind("POST /api/telemetry?x=1 HTTP/1.1\r\n")).toBe("ingest");
  });

  it("not other methods, paths, forms or the live stream", () => {
    for (const line of [
      "GET /api/telemetry HTTP/1.1\r\n",
      "POST /api/telemetry/ HTTP/1.1\r\n",
      "POST /api/telemetry/batch/x HTTP/1.1\r\n",
      "POST /api/telemetryx HTTP/1.1\r\n",
      "POST http://host/api/telemetry HTTP/1.1\r\n",
      "\r\nPOST /api/telemetry HTTP/1.1\r\n",
      "GET /api/ws/telemetry?token=x HTTP/1.1\r\n",
      "PUT /api/telemetry HTTP/1.1\r\n",
      `POST /${"a".repeat(80)} HTTP/1.1\r\n`,
    ]) {
      expect(kind(line), line).toBe("other");
    }
  });

  it("waits for more while the request line may still be an ingest one", () => {
    for (const part of ["P", "POS", "POST", "POST ", "POST /api/tele", "POST /api/telemetry"]) {
      expect(kind(part), part).toBe("more");
    }
    expect(kind("G")).toBe("other");
  });

  it("routes each request of a worker's connection by method and path", () => {
    expect(isIngestRequest("POST", "/api/telemetry")).toBe(true);
    expect(isIngestRequest("POST", "/api/telemetry/batch?a=b")).toBe(true);
    expect(isIngestRequest("GET", "/api/telemetry")).toBe(false);
    expect(isIngestRequest("POST", "/api/telemetry/abc")).toBe(false);
    expect(isIngestRequest(undefined, undefined)).toBe(false);
  });
});
