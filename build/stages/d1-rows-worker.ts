// The D1 rows worker's entry (d1-rows.ts): the rows and their digests of each batch of items it is
// sent, their bodies' bytes handed back without a copy.
import { parentPort } from 'node:worker_threads';
import type { McpItem } from '../core/edge/mcp/mcp-data.ts';
import { flatRows } from '../core/output/item-fragments.ts';
import { rowsDigest } from './d1-rows.ts';

parentPort?.on('message', (batch: McpItem[]) => {
  const rows = batch.map((mcp) => {
    const made = flatRows(mcp);
    made.digest = rowsDigest(made);
    return made;
  });
  const bodies = rows.flatMap((made) =>
    made.bodies.flatMap((body) => (body instanceof Uint8Array ? [body.buffer as ArrayBuffer] : [])),
  );
  parentPort?.postMessage(rows, bodies);
});
