import type { Command } from 'commander';
import type { CliContext } from '../cli-context.ts';
import { resolveSiteConfig } from '../core/config/resolve-site-config.ts';
import { versionState } from '../core/edge/lifecycle.ts';
import { MANIFEST_PATH } from '../core/edge/version-manifest.ts';
import { printable } from '../core/printable.ts';
import { type LiveSite, liveAddress } from '../core/versions/live-check.ts';
import type { BuildResult } from '../index.ts';
import { fetchLive } from '../stages/fetch-live.ts';
import { importConfigModule } from '../stages/load-config.ts';

/**
 * The live check shared by `check --live` and `deploy`: read what the deployed site publishes, so the
 * build can hold the configuration to it (build/core/versions/live-check.ts has the rules).
 */
export interface LiveFlags {
  config?: string;
  allowDroppedField?: string[];
  allowRemovals?: boolean;
}

export function withAllowDroppedField(command: Command): Command {
  return command
    .option(
      '--allow-dropped-field <field...>',
      'with the live check: accept that a live version loses this field (e.g. content[].image) because the content no longer has it',
    )
    .option(
      '--allow-removals',
      'with the live check: accept taking a whole section, or more than 10% of the live items, off the live API',
    );
}

/** The live items a build no longer holds, one line each (deploy and check --live print them). */
export function removalLines(result: BuildResult): string[] {
  const removals = result.removals;
  if (!removals || removals.removed.length === 0) return [];
  return [
    `  ${removals.removed.length} of the ${removals.liveItems} live items would leave /api/${removals.version}/content.json:`,
    ...removals.removed.map((item) => `    ${printable(item.url)} (${item.type}: ${printable(item.title)})`),
  ];
}

/** The address in site.config.ts: where the site is deployed. */
export async function configuredSite(flags: LiveFlags, context: CliContext): Promise<string> {
  const file = flags.config ?? 'site.config.ts';
  const input = await importConfigModule(process.cwd(), file, 'site configuration');
  return resolveSiteConfig(input, context.env, file).site;
}

export async function readLiveSite(
  address: string,
  say: (line: string) => void,
  hint?: string,
): Promise<LiveSite> {
  const live = await fetchLive(address, hint ? { hint } : {});
  if (!live.manifest) {
    say(
      `✓ live site ${live.url}: nothing is published at ${liveAddress(live, MANIFEST_PATH)} yet (a first deploy)`,
    );
    return live;
  }
  const now = new Date();
  const states = live.manifest.versions.map((v) => {
    const dates = {
      ...(v.deprecated_at && { deprecated: new Date(v.deprecated_at) }),
      ...(v.sunset_at && { sunset: new Date(v.sunset_at) }),
    };
    return `${v.version} ${versionState(dates, now)}`;
  });
  say(`✓ live site ${live.url}: ${states.join(', ')}`);
  return live;
}

/** The message after a build that the live site's promises were held to. */
export function livePassed(live: LiveSite): string {
  return live.manifest
    ? `✓ keeps every promise of the live site: no version removed or re-dated, no sunset earlier, 12 months from each deprecation's first publication, no field dropped`
    : '✓ nothing live to hold this build to';
}
