import { loadNativeAddon } from "./native-addon.ts";

/**
 * Stands in for @serialport/bindings-cpp's `dist/serialport-bindings.js` in the single executable
 * (scripts/build/bundle-agent.ts swaps it in). The original loads the addon from its package
 * folder with node-gyp-build at require time; this one loads it from the executable's assets on
 * first use, so an agent that never opens a serial port never writes the addon to disk.
 */
type Binding = Record<string, (...args: unknown[]) => unknown> & {
  Poller: new (...args: unknown[]) => unknown;
};

const addon = (): Binding => loadNativeAddon("serialport") as Binding;

function method(name: string) {
  return (...args: unknown[]) => {
    const fn = addon()[name];
    if (typeof fn !== "function") throw new Error(`the serial port addon has no ${name}()`);
    return fn(...args);
  };
}

// What bindings-cpp's load-bindings.js and poller.js read from it (Poller on Linux and macOS).
const METHODS = [
  "close",
  "drain",
  "flush",
  "get",
  "getBaudRate",
  "list",
  "open",
  "set",
  "update",
  "read",
  "write",
];

export const binding = {
  ...Object.fromEntries(METHODS.map((name) => [name, method(name)])),
  Poller: function Poller(...args: unknown[]) {
    return new (addon().Poller)(...args);
  },
};
