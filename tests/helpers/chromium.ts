import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's package; `npx playwright install` cannot download a browser here. */
export const CHROMIUM = process.env.CONTENT_INDEX_CHROMIUM ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** Says once per test file why its browser tests are skipped. */
export function warnIfNoChromium(what: string): void {
  if (!hasChromium) {
    console.warn(
      `skipping ${what}: no Chromium at ${CHROMIUM} (install it with: apt-get install -y chromium)`,
    );
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-gpu',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}
