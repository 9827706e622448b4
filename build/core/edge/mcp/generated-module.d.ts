// The module `content-index build` writes for the /mcp Function (worker-module.ts). Until a build has
// run it does not exist, and the Function must still type-check; the build also writes a declaration
// beside it, so TypeScript never parses the data itself.
declare module '*/.content-index/worker/mcp-data.mjs' {
  const data: unknown;
  export default data;
}
