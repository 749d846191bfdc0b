// Runs a server module with every listen() moved to 127.0.0.1 on an
// ephemeral port, and prints "AVA_LISTENING <port>" on stderr once bound, so
// tests get a loopback-only server on a port nobody else holds.
//   node loopback-launch.mjs <module> [args for the module...]
import net from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const callback = typeof args[args.length - 1] === "function" ? args.pop() : undefined;
  this.once("listening", () => console.error(`AVA_LISTENING ${this.address().port}`));
  return listen.call(this, 0, "127.0.0.1", callback);
};

const [module, ...rest] = process.argv.slice(2);
process.argv = [process.argv[0], module, ...rest];
await import(pathToFileURL(path.resolve(module)).href);
