import { mkdtempSync } from "node:fs";
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
import { Snap7Peer } from "../../../agent/testing/snap7-server.ts";
import { ScriptedOutstation } from "../../sim/dnp3-outstation.ts";
import { answer } from "../ipc.ts";
import { integrityFragments } from "./dnp3-points.ts";

/*
 * The peers of `npm run bench -- protocols`, in their own process so that their CPU is not the
 * agent's: node-opcua's server, snap7's server, and the scripted DNP3 outstation.
 */

const stops: (() => Promise<void> | void)[] = [];
let outstation: ScriptedOutstation | undefined;

answer({
  /** An OPC UA server with `count` Double variables whose values change every second. */
  opcua: async (r) => {
    const count = Number(r.count);
    const dir = mkdtempSync(join(tmpdir(), "caudal-bench-opcua-"));
    const manager = (name: string) =>
      new OPCUACertificateManager({
        rootFolder: join(dir, name),
        automaticallyAcceptUnknownCertificate: true,
        disableFileWatchers: true,
      });
    const server = new OPCUAServer({
      port: Number(r.port),
      hostname: "127.0.0.1",
      serverCertificateManager: manager("pki"),
      userCertificateManager: manager("user-pki"),
      securityModes: [MessageSecurityMode.None],
      securityPolicies: [SecurityPolicy.None],
      maxConnectionsPerEndpoint: 10,
      serverCapabilities: {
        maxMonitoredItems: 100_000,
        operationLimits: { maxMonitoredItemsPerCall: 100_000 },
      },
    });
    await server.initialize();
    const addressSpace = server.engine.addressSpace;
    const namespace = addressSpace?.getOwnNamespace();
    if (!addressSpace || !namespace) throw new Error("no address space");
    const folder = namespace.addObject({ organizedBy: addressSpace.rootFolder.objects, browseName: "Bench" });
    for (let i = 0; i < count; i++) {
      namespace.addVariable({
        componentOf: folder,
        browseName: `T${i}`,
        nodeId: `s=Bench.T${i}`,
        dataType: DataType.Double,
        value: {
          get: () =>
            new Variant({ dataType: DataType.Double, value: i + (Math.floor(Date.now() / 1000) % 100) }),
        },
      });
    }
    await server.start();
    stops.push(() => server.shutdown(0));
    return {};
  },
  /** snap7's server with data block 1 of 4,000 bytes (1,000 REALs). */
  s7: async () => {
    const peer = new Snap7Peer(4000);
    for (let i = 0; i < 1000; i++) peer.db1.writeFloatBE(i + 0.5, i * 4);
    peer.publish();
    await peer.start();
    stops.push(() => peer.stop());
    return { port: peer.port };
  },
  /** The scripted outstation answering class 0 with `points` analog inputs. */
  dnp3: async (r) => {
    const sim = new ScriptedOutstation({
      address: 10,
      masterAddress: 1,
      integrity: integrityFragments(Number(r.points)),
    });
    sim.restartIin = false;
    await sim.listen(0);
    outstation = sim;
    stops.push(() => sim.close());
    return { port: sim.port };
  },
  /** Class 0 (integrity) reads the outstation has answered so far. */
  integrityPolls: () => ({ count: outstation?.requests.filter((q) => q.classes.includes(0)).length ?? 0 }),
  stop: async () => {
    for (const stop of stops.splice(0)) await stop();
    return {};
  },
});
