import type { Socket } from "node:net";
import { encodeLinkFrame, type LinkFrame, LinkFrameReader, PRIMARY, SECONDARY } from "./link-frame.ts";
import { segmentApdu, TransportReassembler } from "./transport.ts";

/**
 * One DNP3 association over a TCP socket: link frames and transport segments below, whole APDUs
 * above. Used by the master driver and by the scripted outstation alike.
 *
 * User data goes out as UNCONFIRMED_USER_DATA: over TCP the link layer's confirmations add
 * nothing (IEEE 1815-2012 §9.2.6, and Annex on TCP/IP: link confirms are not recommended). The
 * channel still answers a peer's link services (REQUEST_LINK_STATUS keep-alives, RESET_LINK_STATES,
 * TEST_LINK_STATES, CONFIRMED_USER_DATA) so a peer that uses them is not left waiting.
 */
export type ChannelOptions = {
  role: "master" | "outstation";
  localAddress: number;
  remoteAddress: number;
  onApdu: (apdu: Uint8Array) => void;
};

export class Dnp3Channel {
  readonly #socket: Socket;
  readonly #options: ChannelOptions;
  readonly #reader = new LinkFrameReader();
  readonly #reassembler = new TransportReassembler();
  #txSeq = 0;
  /** Frames dropped because they were addressed to another station or came from one. */
  foreignFrames = 0;

  constructor(socket: Socket, options: ChannelOptions) {
    this.#socket = socket;
    this.#options = options;
  }

  /** Starts reading the socket; call once. */
  start(): void {
    this.#socket.on("data", (chunk: Buffer) => {
      for (const frame of this.#reader.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length)))
        this.#onFrame(frame);
    });
  }

  sendApdu(apdu: Uint8Array): void {
    const { segments, nextSeq } = segmentApdu(apdu, this.#txSeq);
    this.#txSeq = nextSeq;
    const frames = segments.map((userData) => this.#frame(true, PRIMARY.UNCONFIRMED_USER_DATA, userData));
    this.#socket.write(frames.length === 1 ? (frames[0] ?? new Uint8Array(0)) : Buffer.concat(frames));
  }

  #frame(primary: boolean, func: number, userData: Uint8Array = new Uint8Array(0)): Uint8Array {
    return encodeLinkFrame({
      fromMaster: this.#options.role === "master",
      primary,
      fcb: false,
      fcv: false,
      func,
      destination: this.#options.remoteAddress,
      source: this.#options.localAddress,
      userData,
    });
  }

  #onFrame(frame: LinkFrame): void {
    const { localAddress, remoteAddress, role } = this.#options;
    // DIR tells who sent the frame (§9.2.4.1.3.1): a master only listens to outstations.
    if (
      frame.destination !== localAddress ||
      frame.source !== remoteAddress ||
      frame.fromMaster === (role === "master")
    ) {
      this.foreignFrames += 1;
      return;
    }
    if (!frame.primary) return; // ACK/NACK/LINK_STATUS: this side never asks for them.
    switch (frame.func) {
      case PRIMARY.REQUEST_LINK_STATUS:
        this.#socket.write(this.#frame(false, SECONDARY.LINK_STATUS));
        return;
      case PRIMARY.RESET_LINK_STATES:
      case PRIMARY.TEST_LINK_STATES:
        this.#socket.write(this.#frame(false, SECONDARY.ACK));
        return;
      case PRIMARY.CONFIRMED_USER_DATA:
        this.#socket.write(this.#frame(false, SECONDARY.ACK));
        break;
      case PRIMARY.UNCONFIRMED_USER_DATA:
        break;
      default:
        return;
    }
    const apdu = this.#reassembler.push(frame.userData);
    if (apdu) this.#options.onApdu(apdu);
  }
}
