import { access, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context.ts';
import { resolveSiteConfig } from '../core/config/resolve-site-config.ts';
import { scaffold } from '../core/content/scaffold.ts';
import { CONTENT_TYPES, type ContentType, isLanguage, type Language } from '../core/edge/languages.ts';
import { ContentIndexError } from '../core/errors.ts';
import { printable } from '../core/printable.ts';
import { importConfigModule } from '../stages/load-config.ts';
import { reportFailure } from './_shared.ts';

interface NewFlags {
  lang?: string;
  config: string;
  title?: string;
  titleEn?: string;
  titlePtBr?: string;
  debug?: boolean;
}

export function registerNewCommand(program: Command, context: CliContext): void {
  program
    .command('new')
    .description('create the files of a new post, project or tip (as drafts)')
    .argument('<type>', 'post, project or tip')
    .argument('<slug>', 'file name and slug, e.g. redes-neuronales')
    .option('--lang <list>', "languages to create, comma-separated (default: the site's languages)")
    .option(
      '--title <text>',
      'the title of the canonical file (Spanish unless canonicalLanguage says otherwise)',
    )
    .option('--title-en <text>', 'the title of the English file')
    .option('--title-pt-br <text>', 'the title of the Brazilian Portuguese file')
    .option('--config <file>', 'site configuration', 'site.config.ts')
    .option('--debug', 'print stack traces of internal errors')
    .action(async (type: string, slug: string, flags: NewFlags) => {
      try {
        const created = await createItem(type, slug, flags, context);
        for (const file of created) context.print(`created ${printable(file)}`);
        context.print(
          'The files are drafts: write the titles and descriptions, then remove `draft: true` to publish (a placeholder left in a published file fails the build).',
        );
      } catch (error) {
        context.exit(reportFailure(error, context, { debug: flags.debug ?? false, wrote: false }));
      }
    });
}

async function createItem(
  type: string,
  slug: string,
  flags: NewFlags,
  context: CliContext,
): Promise<string[]> {
  if (!(CONTENT_TYPES as readonly string[]).includes(type)) {
    throw new ContentIndexError([
      {
        code: 'field_invalid',
        field: 'type',
        message: `unknown type "${type}"`,
        hint: 'use post, project or tip',
      },
    ]);
  }
  const root = process.cwd();
  const config = resolveSiteConfig(
    await importConfigModule(root, flags.config, 'site configuration'),
    context.env,
    flags.config,
  );
  const canonical = config.canonicalLanguage;
  const langs = flags.lang?.split(',').map((l) => l.trim().toLowerCase()) ?? [...config.languages];
  const titles: Partial<Record<Language, string>> = {};
  if (flags.titleEn !== undefined) titles.en = flags.titleEn;
  if (flags.titlePtBr !== undefined) titles['pt-br'] = flags.titlePtBr;
  if (flags.title !== undefined) titles[canonical] ??= flags.title;
  const unknown = langs.filter((l) => !isLanguage(l) || !config.languages.includes(l));
  if (unknown.length > 0) {
    throw new ContentIndexError([
      {
        code: 'language_unknown',
        field: 'lang',
        message: `unknown language ${unknown.join(', ')}`,
        hint: `use the site's languages: ${config.languages.join(', ')} (languages in ${flags.config})`,
      },
    ]);
  }
  const unwritten = (Object.keys(titles) as Language[]).filter((l) => l !== canonical && !langs.includes(l));
  if (unwritten.length > 0) {
    throw new ContentIndexError(
      unwritten.map((lang) => ({
        code: 'field_invalid' as const,
        field: `title-${lang}`,
        message: `gives a title for ${lang}, which --lang does not create`,
        hint: `add ${lang} to --lang, or leave out --title-${lang}`,
      })),
    );
  }
  const today = new Date().toISOString().slice(0, 10);
  const files = scaffold({
    type: type as ContentType,
    slug,
    langs: langs as Language[],
    canonical,
    layout: config.content,
    date: today,
    titles,
  });
  // Check every target before writing any, so a refusal leaves nothing half-created.
  const existing: string[] = [];
  for (const file of files) {
    if (
      await access(resolve(root, file.path)).then(
        () => true,
        () => false,
      )
    )
      existing.push(file.path);
  }
  if (existing.length > 0) {
    throw new ContentIndexError(
      existing.map((path) => ({
        code: 'field_invalid' as const,
        file: path,
        message: 'already exists; nothing was written',
        hint: 'choose another slug, or edit the existing file',
      })),
    );
  }
  for (const file of files) {
    const target = join(root, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.content, { flag: 'wx' });
  }
  return files.map((f) => relative(root, join(root, f.path)));
}
