/**
 * What the OPC UA driver uses of node-opcua: its client and its certificate store. Not the
 * `node-opcua` package, which also loads the server and the address space, and whose modules
 * read files beside themselves as they load (the server its package.json, the address space its
 * test fixtures): a single executable has no such files.
 */

export { OPCUACertificateManager } from "node-opcua-certificate-manager";
export * from "node-opcua-client";
