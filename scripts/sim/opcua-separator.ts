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
 * A simulated three-phase separator on OPC UA, for `npm start` and the tests: node-opcua's own
 * OPCUAServer (a peer we did not write) on 127.0.0.1, offering None and
 * SignAndEncrypt/Basic256Sha256, anonymous or with a username login, and the separator's tags
 * under ns=1: `s=Separator.Pressure` (Double, psi), `s=Separator.Level` (Float, ft),
 * `s=Separator.Temperature` (Double, degF), `s=Separator.Running` (Boolean). Its PKI lives in
 * its own folder (a temp one by default), never in ~/.config.
 */
export class OpcUaSeparator {
  static readonly USER = "operator";
  static readonly PASSWORD = "field-password-1";
  readonly values = { pressure: 245.5, level: 3.25, temperature: 118.5, running: true };
  #t = 0;
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
          user === OpcUaSeparator.USER && password === OpcUaSeparator.PASSWORD,
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
        // A value getter needs a sampling interval, or node-opcua sets 1000 ms itself and says so
        // in a multi-line warning (NODE-OPCUA-W30) per tag. The separator moves once a second.
        minimumSamplingInterval: 1000,
        value: { get: () => new Variant({ dataType, value: read() }) },
      });
    tag("Pressure", DataType.Double, () => this.values.pressure);
    tag("Level", DataType.Float, () => this.values.level);
    tag("Temperature", DataType.Double, () => this.values.temperature);
    tag("Running", DataType.Boolean, () => this.values.running);
    await server.start();
    this.#server = server;
  }

  /**
   * Moves the demo separator on: pressure follows the well's slow wave, the level rises and is
   * dumped at 4 ft back to 2 ft, the temperature drifts. Tests set `values` themselves instead.
   */
  step(seconds = 1): void {
    this.#t += seconds;
    const noise = () => (Math.random() - 0.5) * 2;
    this.values.pressure = 250 + 12 * Math.sin(this.#t / 420) + noise() * 0.8;
    this.values.level = this.values.level >= 4 ? 2 : this.values.level + 0.004 * seconds;
    this.values.temperature = 118 + 3 * Math.sin(this.#t / 1500) + noise() * 0.2;
  }

  async stop(): Promise<void> {
    await this.#server?.shutdown(0);
    this.#server = undefined;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
