import nodes7 from "nodes7";

/** What the S7 driver uses of nodes7 0.3 (a CommonJS module without types). */
export type NodeS7Values = Record<string, unknown>;

export type NodeS7Client = {
  initiateConnection(
    params: { host: string; port: number; rack: number; slot: number; timeout: number },
    callback: (err?: { code?: string; message?: string }) => void,
  ): void;
  addItems(items: string[]): void;
  removeItems(items: string[]): void;
  readAllItems(callback: (anythingBad: boolean, values: NodeS7Values) => void): void;
  dropConnection(callback: () => void): void;
  /** 4 once the ISO and S7 (PDU) connections are up; 0 after a connection error or reset. */
  isoConnectionState: number;
};

type NodeS7Constructor = new (options: { silent: boolean }) => NodeS7Client;

/** The one cast of the module's untyped export; `silent`: nodes7 logs to the console otherwise. */
export function createNodeS7Client(): NodeS7Client {
  const NodeS7 = nodes7 as NodeS7Constructor;
  return new NodeS7({ silent: true });
}

/** nodes7's "connected" state (ISO-on-TCP and the S7 communication set-up both done). */
export const NODES7_CONNECTED = 4;
