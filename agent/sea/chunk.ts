import { createRequire, isBuiltin } from "node:module";
import { dirname, join } from "node:path";
import { getAsset } from "node:sea";
import { compileFunction } from "node:vm";

/**
 * Modules the single executable carries beside its main script, each a CommonJS bundle in the
 * asset `chunks/<name>.cjs` (scripts/build/bundle-agent.ts, SEA_CHUNKS). V8 keeps a script's
 * whole source in its heap for as long as the script lives, and the OPC UA client is two thirds of
 * the agent's code: kept apart, it is read, compiled and run only when an OPC UA device connects
 * or is browsed, and an agent that polls Modbus never holds it.
 */
const loaded = new Map<string, unknown>();

/** What a chunk may require: Node's own modules, as the executable's main script. */
const builtinRequire = (() => {
  const require = createRequire(process.execPath);
  return (id: string): unknown => {
    if (!isBuiltin(id)) throw new Error(`a bundled chunk required "${id}", which is not a Node module`);
    return require(id);
  };
})();

export function loadChunk(name: string): unknown {
  if (loaded.has(name)) return loaded.get(name);
  const source = getAsset(`chunks/${name}.cjs`, "utf8");
  const run = compileFunction(source, ["exports", "require", "module", "__filename", "__dirname"], {
    filename: join(process.execPath, "chunks", `${name}.cjs`),
  });
  const module = { exports: {} as unknown };
  // As in the main script: __filename is the executable, __dirname its folder.
  run(module.exports, builtinRequire, module, process.execPath, dirname(process.execPath));
  loaded.set(name, module.exports);
  return module.exports;
}
