// The bodies an item's fragments were made from, held until its MCP backend's share is made (its D1
// rows, or its share of the embedded data): no later stage of the build reads them. Made from the
// items (stages/items.ts), let go from the MCP stage (d1-rows.ts, mcp-output.ts), which knows fragments
// and not files; no import, so that the D1 rows worker loads nothing more for it.

const HELD = new WeakMap<object, () => void>();

/** Says how to let go of the bodies the item's fragments were made from. */
export function holdBodies(fragments: object, release: () => void): void {
  HELD.set(fragments, release);
}

/** The item's MCP share is made: its bodies are let go (read again from their files if ever asked). */
export function releaseBodies(fragments: object): void {
  const release = HELD.get(fragments);
  if (!release) return;
  HELD.delete(fragments);
  release();
}
