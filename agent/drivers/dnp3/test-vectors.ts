/**
 * DNP3 byte sequences recorded by others, for checking our codec and for the scripted
 * outstation to replay. Each is copied as hex from the test named beside it; none is produced by
 * our own encoder. Sources (Apache-2.0):
 *   opendnp3 = github.com/dnp3/opendnp3 @ c1dc7165a79cc08edbf4b55d2ff4162efb176f92, cpp/tests/unit/
 *   stepfunc = github.com/stepfunc/dnp3 @ 5d83f2c585060d1a7ac18c23ea98c7d96d81920d, dnp3/src/
 */

/** Hex ("05 64 05 …") to bytes. */
export function hex(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, "");
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(clean.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Bytes to upper-case hex separated by spaces, the notation of the sources. */
export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).toUpperCase().padStart(2, "0")).join(" ");
}

// ---- Link layer (IEEE 1815-2012 §9.2) ----

/** opendnp3 TestCRC.cpp "CrcTest": CRC of the first 8 bytes is 0x21E9 (sent low byte first). */
export const CRC_HEADER = { frame: "05 64 05 C0 01 00 00 04 E9 21", crc: 0x21e9 };

export const LINK_FRAMES = {
  /** opendnp3 TestLinkFrame.cpp "ResetLinks": master 1024 → outstation 1, RESET_LINK_STATES. */
  resetLinksFromMaster: "05 64 05 C0 01 00 00 04 E9 21",
  /** opendnp3 TestLinkFrame.cpp "RequestLinkStates": outstation 1024 → 1, REQUEST_LINK_STATUS. */
  requestLinkStatusFromOutstation: "05 64 05 49 01 00 00 04 D2 36",
  /** opendnp3 TestLinkFrame.cpp "ACK": outstation 1 → master 1024, ACK, DFC clear. */
  ackFromOutstation: "05 64 05 00 00 04 01 00 19 A6",
  /** opendnp3 TestLinkFrame.cpp "ACK": master 1024 → outstation 1, ACK, DFC clear. */
  ackFromMaster: "05 64 05 80 01 00 00 04 53 11",
  /**
   * opendnp3 TestLinkFrame.cpp "ConfirmedUserData" (master, FCB set): master 1024 → outstation 1;
   * its user data is a transport segment (C0) carrying an integrity poll APDU with SEQ 3.
   */
  confirmedUserDataFromMaster: {
    frame: "05 64 14 F3 01 00 00 04 0A 3B C0 C3 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06 9A 12",
    userData: "C0 C3 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06",
  },
  /**
   * opendnp3 TestLinkFrame.cpp "ConfirmedUserData" (outstation, FCB set): 83 bytes of user data
   * over six CRC blocks. The APDU is a response with IIN1 = 0x96 (restart, need time, class 1
   * and 2 events) holding g2v1 ×4, g32v2 ×2, g1v1 0–3, g30v2 0–1.
   */
  confirmedUserDataFromOutstation: {
    frame:
      "05 64 53 73 00 04 01 00 03 FC C1 E3 81 96 00 02 01 28 01 00 00 00 01 02 01 28 05 24 01 00 01 00 01 02 " +
      "01 28 01 00 02 00 01 02 01 28 B4 77 01 00 03 00 01 20 02 28 01 00 00 00 01 00 00 20 A5 25 02 28 01 00 " +
      "01 00 01 00 00 01 01 01 00 00 03 00 2F AC 00 1E 02 01 00 00 01 00 01 00 00 01 00 00 16 ED",
    userData:
      "C1 E3 81 96 00 02 01 28 01 00 00 00 01 02 01 28 01 00 01 00 01 02 01 28 01 00 02 00 01 " +
      "02 01 28 01 00 03 00 01 20 02 28 01 00 00 00 01 00 00 20 02 28 01 00 01 00 01 00 00 01 " +
      "01 01 00 00 03 00 00 1E 02 01 00 00 01 00 01 00 00 01 00 00",
  },
  /** opendnp3 TestLinkReceiver.cpp "HeaderCRCError": the header CRC's last byte is off by one. */
  headerCrcError: "05 64 05 C0 01 00 00 04 E9 20",
  /** opendnp3 TestLinkReceiver.cpp "BodyCRCError": the body CRC's last byte is off by one. */
  bodyCrcError: "05 64 14 F3 01 00 00 04 0A 3B C0 C3 01 3C 02 06 3C 03 06 3C 04 06 3C 01 06 9A 11",
  /** opendnp3 TestLinkReceiver.cpp "Resync0564": a stray 05 64 before a valid frame. */
  resync: "05 64 05 64 05 C0 01 00 00 04 E9 21",
} as const;

// ---- Transport layer (IEEE 1815-2012 §8) ----

export const TRANSPORT = {
  /** opendnp3 TestTransportLayer.cpp "RepeatSendsDoNotLogOrChangeStatistics": one segment, SEQ 0. */
  singleSegment: { apdu: "12 34 56", segment: "C0 12 34 56" },
  /** opendnp3 TestTransportLayer.cpp "PacketsCanBeOfVaryingSize". */
  twoSegments: { segments: ["40 0A 0B 0C", "81 0D 0E 0F"], apdu: "0A 0B 0C 0D 0E 0F" },
  /** opendnp3 TestTransportLayer.cpp "allows header-only final frame". */
  headerOnlyFinal: { segments: ["41 DE AD BE EF", "82"], apdu: "DE AD BE EF" },
  /** opendnp3 TestTransportLayer.cpp "ReceiveNoFIR": a segment without FIR and no prior FIR. */
  noFir: "80 77",
  /**
   * opendnp3 TestTransportLayer.cpp "ReceiveWrongSequence": FIR SEQ 0, then FIN SEQ 2. The
   * headers 40 and 82 are the test's; its payloads come from a generator, so ours are arbitrary.
   */
  wrongSequence: ["40 01 02", "82 03"],
  /**
   * opendnp3 TestTransportLayer.cpp "ReceiveNewFir": a new FIR discards the partial APDU. The
   * first segment's payload is generated in the test, so ours is arbitrary; "C0 AB CD" is its own.
   */
  newFir: { segments: ["40 01 02 03", "C0 AB CD"], apdu: "AB CD" },
} as const;

// ---- Application layer requests, as a master sends them (IEEE 1815-2012 §4.2.2) ----

export const REQUESTS = {
  /** opendnp3 TestOutstation.cpp "BlankIntegrityPoll": read class 0. */
  readClass0: "C0 01 3C 01 06",
  /** opendnp3 TestAPDUWriting.cpp "AllObjectsAndRollback": classes 0, 1, 2, 3. */
  readClass0123: "C0 01 3C 01 06 3C 02 06 3C 03 06 3C 04 06",
  /** opendnp3 TestMaster.cpp "EventPoll": read classes 1 and 2. */
  readClass12: "C0 01 3C 02 06 3C 03 06",
  /** stepfunc outstation/tests/read_states.rs READ_CLASS_123. */
  readClass123: "C0 01 3C 02 06 3C 03 06 3C 04 06",
  /** opendnp3 TestMaster.cpp "RestartViaNullUnsol": write g80v1 index 7 = 0 (clear restart). */
  clearRestart: "C0 02 50 01 00 07 07 00",
  /** opendnp3 TestAPDUWriting.cpp "WriteSingleValue": write g50v1 count 1, time = 0x1234 ms. */
  writeTime0x1234: "C0 02 32 01 07 01 34 12 00 00 00 00",
  /** opendnp3 TestOutstation.cpp "ReadClass0MultiFragAnalog": solicited confirm, SEQ 0. */
  confirmSeq0: "C0 00",
  /** stepfunc outstation/tests/read_states.rs CONFIRM_SEQ_1. */
  confirmSeq1: "C1 00",
  /** stepfunc outstation/tests/read_states.rs UNS_CONFIRM_SEQ_0. */
  unsolicitedConfirmSeq0: "D0 00",
} as const;

// ---- Application layer responses, as an outstation sends them (IEEE 1815-2012 §4.2.2.4) ----

/** Object data of single static points (index 0), from opendnp3 TestOutstation.cpp class 0 reads. */
export const STATIC_RESPONSES = {
  /** "ReadGrp30Var2": value 100, flags ONLINE. */
  g30v2: { apdu: "C0 81 80 00 1E 02 00 00 00 01 64 00", value: 100, flags: 0x01 },
  /** "ReadGrp30Var3": value 65536, no flags. */
  g30v3: { apdu: "C0 81 80 00 1E 03 00 00 00 00 00 01 00", value: 65536, flags: 0x01 },
  /** "ReadGrp30Var4": value 100, no flags. */
  g30v4: { apdu: "C0 81 80 00 1E 04 00 00 00 64 00", value: 100, flags: 0x01 },
  /** "ReadGrp30Var5": value 95.6 as float32, flags ONLINE. */
  g30v5: { apdu: "C0 81 80 00 1E 05 00 00 00 01 33 33 BF 42", value: Math.fround(95.6), flags: 0x01 },
  /** "ReadGrp30Var6": value -20 as float64, flags ONLINE. */
  g30v6: { apdu: "C0 81 80 00 1E 06 00 00 00 01 00 00 00 00 00 00 34 C0", value: -20, flags: 0x01 },
  /** "ReadGrp30Var1ViaIntegrity": value 0, flags RESTART (not ONLINE: never updated). */
  g30v1: { apdu: "C0 81 80 00 1E 01 00 00 00 02 00 00 00 00", value: 0, flags: 0x02 },
  /** "ReadGrp20Var1": value 5, flags ONLINE. */
  g20v1: { apdu: "C0 81 80 00 14 01 00 00 00 01 05 00 00 00", value: 5, flags: 0x01 },
  /** "ReadGrp20Var2": value 5, flags ONLINE. */
  g20v2: { apdu: "C0 81 80 00 14 02 00 00 00 01 05 00", value: 5, flags: 0x01 },
  /** "ReadGrp20Var5": value 5, no flags. */
  g20v5: { apdu: "C0 81 80 00 14 05 00 00 00 05 00 00 00", value: 5, flags: 0x01 },
  /** "ReadGrp20Var6": value 5, no flags. */
  g20v6: { apdu: "C0 81 80 00 14 06 00 00 00 05 00", value: 5, flags: 0x01 },
} as const;

export const RESPONSES = {
  /**
   * opendnp3 TestOutstation.cpp "MixedVariationAssignments": class 0 with g30v1 index 0 and
   * g30v2 index 1, both flagged RESTART (0x02) with value 0.
   */
  mixedAnalogs: "C0 81 80 00 1E 01 00 00 00 02 00 00 00 00 1E 02 00 01 01 02 00 00",
  /** opendnp3 TestOutstation.cpp "ReadGrp1Var1": g1v1 packed, indices 0–9 all 0. */
  g1v1Packed: "C0 81 80 00 01 01 00 00 09 00 00",
  /** opendnp3 TestAPDUParsing.cpp "Group1Var2Range": g1v2 3–5 = 0x81 0x01 0x81 (objects only). */
  g1v2RangeObjects: "01 02 00 03 05 81 01 81",
  /** opendnp3 TestAPDUParsing.cpp "Group1Var1ByRange": g1v1 3–6 packed in 0x09 (objects only). */
  g1v1RangeObjects: "01 01 00 03 06 09",
  /** opendnp3 TestAPDUParsing.cpp "Group1Var2Range16": g1v2, qualifier 0x01, 3–3 = 0x81. */
  g1v2Range16Objects: "01 02 01 03 00 03 00 81",
  /** opendnp3 TestAPDUParsing.cpp "Group2Var1CountWithAllIndexSizes": index 9 = 0x81, q 0x17. */
  g2v1Count8Objects: "02 01 17 01 09 81",
  /** the same test, qualifier 0x28. */
  g2v1Count16Objects: "02 01 28 01 00 09 00 81",
  /** opendnp3 TestMeasurementHandler.cpp "parses g2v2 w/ synchronized timestamp quality". */
  g2v2Objects: "02 02 17 01 AA 81 08 00 00 00 00 00",
  /** opendnp3 TestMaster.cpp "SolicitedResponseWithData": g2v1 q 0x00 index 2 = 0x81. */
  solicitedWithData: "C0 81 00 00 01 02 00 02 02 81",
  /**
   * opendnp3 TestOutstationEventResponses.cpp "ReadClass1WithSOE": class 1 events with CON set:
   * g32v1 index 0x17 = 0x1234, g2v1 index 0x10 = on, g32v1 index 0x17 = 0x2222 (all ONLINE).
   */
  class1Soe:
    "E0 81 80 00 20 01 28 01 00 17 00 01 34 12 00 00 02 01 28 01 00 10 00 81 20 01 28 01 00 17 00 01 22 22 00 00",
  /** opendnp3 TestOutstationEventResponses.cpp "MultipleClasses": class 2, g32v1 index 0 = 3. */
  class2Analog: "E1 81 8A 00 20 01 28 01 00 00 00 01 03 00 00 00",
  /** opendnp3 TestOutstationEventResponses.cpp "MultipleClasses": class 3, g22v1 index 0 = 7. */
  class3Counter: "E2 81 82 00 16 01 28 01 00 00 00 01 07 00 00 00",
  /** opendnp3 TestOutstationEventResponses.cpp "ReadGrp22Var0": g22v1 index 0 = 0, ONLINE. */
  g22v1: "E0 81 80 00 16 01 28 01 00 00 00 01 00 00 00 00",
  /** opendnp3 TestOutstationEventResponses.cpp "reports g22v5 correctly": 23 at 1512595515000. */
  g22v5: "E0 81 80 00 16 05 28 01 00 00 00 01 17 00 00 00 78 E6 B7 2D 60 01",
  /** opendnp3 TestOutstationEventResponses.cpp "reports g22v6 correctly". */
  g22v6: "E0 81 80 00 16 06 28 01 00 00 00 01 17 00 78 E6 B7 2D 60 01",
  /** opendnp3 TestOutstationEventResponses.cpp "ReadGrp32Var5": g32v5 index 0 = 0.0. */
  g32v5: "E0 81 80 00 20 05 28 01 00 00 00 01 00 00 00 00",
  /** opendnp3 TestOutstationEventResponses.cpp "ReadGrp32Var7": g32v7, time 0x010203040506. */
  g32v7: "E0 81 80 00 20 07 28 01 00 00 00 01 00 00 00 00 06 05 04 03 02 01",
  /** opendnp3 TestOutstationEventResponses.cpp "ReadClass1WithSOEWithTimeoutInBetween". */
  g2v1TwoEvents: "E1 81 80 00 02 01 28 02 00 00 00 81 00 00 01",
  /** opendnp3 TestMaster.cpp "MasterWritesTimeAndInterval": a null response, no IIN bits. */
  nullResponse: "C0 81 00 00",
  /** opendnp3 TestOutstation.cpp "BlankIntegrityPoll": empty response, IIN1 DEVICE_RESTART. */
  emptyWithRestart: "C0 81 80 00",
  /** stepfunc outstation/tests/read_states.rs EMPTY_RESPONSE_WITH_PENDING_EVENTS (IIN1 0x82). */
  emptyWithClass1: "C0 81 82 00",
  /** opendnp3 TestMaster.cpp "RestartViaNullUnsol": null unsolicited, CON, IIN1 restart. */
  nullUnsolicitedRestart: "F0 82 80 00",
  /** opendnp3 TestMaster.cpp "performs non-LAN time synchronization": IIN1 NEED_TIME, g52v2. */
  needTimeWithDelay: "C1 81 10 00 34 02 07 01 0A 00",
  /** opendnp3 TestMaster.cpp "SolicitedMultiFragResponse": FIR without FIN, then FIN. */
  multiFragment: ["80 81 00 00 01 02 00 02 02 81", "41 81 00 00 01 02 00 03 03 02"],
  /**
   * opendnp3 TestOutstation.cpp "ReadClass0MultiFragAnalog": class 0 over four fragments, the
   * first three with CON (A0, 21, 22), the last FIN (43); g30v1 indices 0–7, value 0, ONLINE.
   */
  class0FourFragments: [
    "A0 81 80 00 1E 01 00 00 01 01 00 00 00 00 01 00 00 00 00",
    "21 81 80 00 1E 01 00 02 03 01 00 00 00 00 01 00 00 00 00",
    "22 81 80 00 1E 01 00 04 05 01 00 00 00 00 01 00 00 00 00",
    "43 81 80 00 1E 01 00 06 07 01 00 00 00 00 01 00 00 00 00",
  ],
} as const;

/** Malformed object data a parser must refuse without throwing (opendnp3 TestAPDUParsing.cpp). */
export const BAD_OBJECTS = {
  /** "TestUnknownQualifier". */
  unknownQualifier: "02 02 AB",
  /** "NotEnoughDataForObjects": range 1–4 with 3 bytes of data. */
  notEnoughData: "01 02 00 01 04 FF FF FF",
  /** "FlippedRange". */
  flippedRange: "01 02 00 05 03",
  /** "TestUnreasonableRanges": 0–65535 with no data. */
  unreasonableRange: "01 02 01 00 00 FF FF",
  /** "NotEnoughData": two bytes, not a whole header. */
  shortHeader: "AB CD",
} as const;
