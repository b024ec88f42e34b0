// nodes7 0.3 ships no types; nodes7-client.ts declares the part the driver uses and casts once.
declare module "nodes7" {
  const NodeS7: unknown;
  export = NodeS7;
}
