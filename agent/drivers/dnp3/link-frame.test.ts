import { describe, expect, it } from "vitest";
import { dnpCrc } from "./crc.ts";
import { encodeLinkFrame, LinkFrameReader, PRIMARY, SECONDARY } from "./link-frame.ts";
import { CRC_HEADER, hex, LINK_FRAMES, toHex } from "./test-vectors.ts";

describe("DNP3 CRC-16 (IEEE 1815-2012 §9.2.4.1.2)", () => {
  it("matches opendnp3's CrcTest vector", () => {
    expect(dnpCrc(hex(CRC_HEADER.frame).subarray(0, 8))).toBe(CRC_HEADER.crc);
  });
});

describe("link frame encoding", () => {
  it("formats RESET_LINK_STATES from the master as opendnp3 does", () => {
    const bytes = encodeLinkFrame({
      fromMaster: true,
      primary: true,
      fcb: false,
      fcv: false,
      func: PRIMARY.RESET_LINK_STATES,
      destination: 1,
      source: 1024,
      userData: new Uint8Array(0),
    });
    expect(toHex(bytes)).toBe(LINK_FRAMES.resetLinksFromMaster);
  });

  it("formats ACKs in both directions", () => {
    const ack = (fromMaster: boolean, destination: number, source: number) =>
      toHex(
        encodeLinkFrame({
          fromMaster,
          primary: false,
          fcb: false,
          fcv: false,
          func: SECONDARY.ACK,
          destination,
          source,
          userData: new Uint8Array(0),
        }),
      );
    expect(ack(false, 1024, 1)).toBe(LINK_FRAMES.ackFromOutstation);
    expect(ack(true, 1, 1024)).toBe(LINK_FRAMES.ackFromMaster);
  });

  it("puts a CRC after every 16-byte block of user data (master and outstation vectors)", () => {
    const master = LINK_FRAMES.confirmedUserDataFromMaster;
    expect(
      toHex(
        encodeLinkFrame({
          fromMaster: true,
          primary: true,
          fcb: true,
          fcv: true,
          func: PRIMARY.CONFIRMED_USER_DATA,
          destination: 1,
          source: 1024,
          userData: hex(master.userData),
        }),
      ),
    ).toBe(master.frame);
    const outstation = LINK_FRAMES.confirmedUserDataFromOutstation;
    expect(
      toHex(
        encodeLinkFrame({
          fromMaster: false,
          primary: true,
          fcb: true,
          fcv: true,
          func: PRIMARY.CONFIRMED_USER_DATA,
          destination: 1024,
          source: 1,
          userData: hex(outstation.userData),
        }),
      ),
    ).toBe(outstation.frame);
  });

  it("refuses user data over 250 bytes", () => {
    expect(() =>
      encodeLinkFrame({
        fromMaster: true,
        primary: true,
        fcb: false,
        fcv: false,
        func: PRIMARY.UNCONFIRMED_USER_DATA,
        destination: 1,
        source: 2,
        userData: new Uint8Array(251),
      }),
    ).toThrow(/250/);
  });
});

describe("link frame reader", () => {
  it("reads the outstation's six-block frame, fed one byte at a time", () => {
    const v = LINK_FRAMES.confirmedUserDataFromOutstation;
    const reader = new LinkFrameReader();
    const frames = [...hex(v.frame)].flatMap((b) => reader.push(Uint8Array.of(b)));
    expect(frames).toHaveLength(1);
    const f = frames[0];
    expect(f?.fromMaster).toBe(false);
    expect(f?.primary).toBe(true);
    expect(f?.func).toBe(PRIMARY.CONFIRMED_USER_DATA);
    expect(f?.destination).toBe(1024);
    expect(f?.source).toBe(1);
    expect(toHex(f?.userData ?? new Uint8Array(0))).toBe(v.userData);
  });

  it("reads back-to-back frames from one chunk", () => {
    const reader = new LinkFrameReader();
    const frames = reader.push(
      hex(`${LINK_FRAMES.resetLinksFromMaster} ${LINK_FRAMES.resetLinksFromMaster}`),
    );
    expect(frames.map((f) => [f.func, f.destination, f.source])).toEqual([
      [PRIMARY.RESET_LINK_STATES, 1, 1024],
      [PRIMARY.RESET_LINK_STATES, 1, 1024],
    ]);
  });

  it("drops a frame whose header CRC is wrong", () => {
    const reader = new LinkFrameReader();
    expect(reader.push(hex(LINK_FRAMES.headerCrcError))).toEqual([]);
    expect(reader.errors.headerCrc).toBe(1);
  });

  it("drops a frame whose body CRC is wrong", () => {
    const reader = new LinkFrameReader();
    expect(reader.push(hex(LINK_FRAMES.bodyCrcError))).toEqual([]);
    expect(reader.errors.bodyCrc).toBe(1);
  });

  it("resynchronises on the next 05 64 after a stray start", () => {
    const reader = new LinkFrameReader();
    const frames = reader.push(hex(LINK_FRAMES.resync));
    expect(reader.errors.headerCrc).toBe(1);
    expect(frames).toHaveLength(1);
    expect(frames[0]?.func).toBe(PRIMARY.RESET_LINK_STATES);
  });

  it("reads REQUEST_LINK_STATUS and both ACKs", () => {
    const reader = new LinkFrameReader();
    const frames = reader.push(
      hex(
        `${LINK_FRAMES.requestLinkStatusFromOutstation} ${LINK_FRAMES.ackFromOutstation} ${LINK_FRAMES.ackFromMaster}`,
      ),
    );
    expect(frames.map((f) => [f.primary, f.func, f.fromMaster])).toEqual([
      [true, PRIMARY.REQUEST_LINK_STATUS, false],
      [false, SECONDARY.ACK, false],
      [false, SECONDARY.ACK, true],
    ]);
  });
});
