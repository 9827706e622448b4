import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DISCOVERY_PATHS } from '../core/discovery/addresses.ts';
import { DOCS_SCRIPT } from '../core/discovery/docs-page.ts';
import type { OutputFile } from '../core/outputs.ts';

const require = createRequire(import.meta.url);

/**
 * Redoc's sidebar credit loads its logo from Redocly's CDN, which would send every reader's address to
 * a third party (the page's CSP would block it, but the attempt is still made). The credit text and
 * link stay; the logo becomes an empty inline image. Matching the exact string makes a Redoc update
 * that moves it fail the build instead of silently loading a remote file.
 */
const REMOTE_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';
const INLINE_LOGO = `"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E"`;

/** The renderer's bundle and its licence notices, copied from node_modules into `docs/`. */
export async function docsAssets(): Promise<OutputFile[]> {
  const bundlePath = require.resolve(`redoc/bundles/${DOCS_SCRIPT}`);
  const bundle = await readFile(bundlePath, 'utf8');
  const occurrences = bundle.split(REMOTE_LOGO).length - 1;
  if (occurrences !== 1) {
    throw new Error(
      `redoc's bundle has ${occurrences} references to its remote logo, expected 1: review build/stages/docs-assets.ts`,
    );
  }
  const licence = await readFile(`${bundlePath}.LICENSE.txt`, 'utf8');
  const redocLicence = await readFile(join(dirname(bundlePath), '..', 'LICENSE'), 'utf8');
  return [
    { path: `${DISCOVERY_PATHS.docs}${DOCS_SCRIPT}`, content: bundle.replace(REMOTE_LOGO, INLINE_LOGO) },
    { path: `${DISCOVERY_PATHS.docs}${DOCS_SCRIPT}.LICENSE.txt`, content: licence },
    { path: `${DISCOVERY_PATHS.docs}LICENSE-redoc.txt`, content: redocLicence },
  ];
}
