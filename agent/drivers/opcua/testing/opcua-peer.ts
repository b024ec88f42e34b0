import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DataType,
  MessageSecurityMode,
  OPCUACertificateManager,
  OPCUAServer,
  SecurityPolicy,
  Variant,
} from "node-opcua";

/**
 * An OPC UA server for tests: node-opcua's own OPCUAServer (a peer we did not write) on
 * 127.0.0.1, offering None and SignAndEncrypt/Basic256Sha256, with a username login, and a
 * separator's tags under ns=1: `s=Separator.Pressure` (Double), `s=Separator.Level` (Float),
 * `s=Separator.Running` (Boolean). Its PKI lives in a temp folder, never in ~/.config.
 */
export class OpcUaPeer {
  static readonly USER = "operator";
  static readonly PASSWORD = "field-password-1";
  readonly values = { pressure: 245.5, level: 3.25, running: true };
  readonly dir: string;
  #server: OPCUAServer | undefined;
  port = 0;

  constructor(dir?: string) {
    this.dir = dir ?? mkdtempSync(join(tmpdir(), "caudal-opcua-peer-"));
  }

  get endpoint(): string {
    return `opc.tcp://127.0.0.1:${this.port}`;
  }

  /** The server's certificate file (what the agent finds in its pki/rejected). */
  get certificateFile(): string {
    return join(this.dir, "pki", "own", "certs", "certificate.pem");
  }

  async start(port: number): Promise<void> {
    this.port = port;
    const serverCertificateManager = new OPCUACertificateManager({
      rootFolder: join(this.dir, "pki"),
      automaticallyAcceptUnknownCertificate: true,
      disableFileWatchers: true,
    });
    const server = new OPCUAServer({
      port,
      hostname: "127.0.0.1",
      serverCertificateManager,
      // Its user-certificate store too, or node-opcua makes one in ~/.config.
      userCertificateManager: new OPCUACertificateManager({
        rootFolder: join(this.dir, "user-pki"),
        automaticallyAcceptUnknownCertificate: true,
        disableFileWatchers: true,
      }),
      securityModes: [MessageSecurityMode.None, MessageSecurityMode.SignAndEncrypt],
      securityPolicies: [SecurityPolicy.None, SecurityPolicy.Basic256Sha256],
      allowAnonymous: true,
      userManager: {
        isValidUser: (user: string, password: string) =>
          user === OpcUaPeer.USER && password === OpcUaPeer.PASSWORD,
      },
    });
    await server.initialize();
    const addressSpace = server.engine.addressSpace;
    const namespace = addressSpace?.getOwnNamespace();
    if (!addressSpace || !namespace) throw new Error("no address space");
    const separator = namespace.addObject({
      organizedBy: addressSpace.rootFolder.objects,
      browseName: "Separator",
    });
    const tag = (name: string, dataType: DataType, read: () => number | boolean) =>
      namespace.addVariable({
        componentOf: separator,
        browseName: name,
        nodeId: `s=Separator.${name}`,
        dataType,
        value: { get: () => new Variant({ dataType, value: read() }) },
      });
    tag("Pressure", DataType.Double, () => this.values.pressure);
    tag("Level", DataType.Float, () => this.values.level);
    tag("Running", DataType.Boolean, () => this.values.running);
    await server.start();
    this.#server = server;
  }

  async stop(): Promise<void> {
    await this.#server?.shutdown(0);
    this.#server = undefined;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
