import { readFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ContentIndexError } from '../core/errors.ts';
import {
  emptyRecord,
  PUBLISHED_RECORD_FILE,
  type PublishedRecord,
  parsePublishedRecord,
  renderPublishedRecord,
} from '../core/versions/published-record.ts';

export interface LoadedRecord {
  record: PublishedRecord;
  /** The file's text as read, to write only when it changes. */
  text: string | undefined;
}

/** `versions.lock.json` at the project root; a site that has none yet starts with an empty record. */
export async function readPublishedRecord(root: string): Promise<LoadedRecord> {
  let text: string;
  try {
    text = readFileSync(join(root, PUBLISHED_RECORD_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { record: emptyRecord(), text: undefined };
    throw error;
  }
  let record: PublishedRecord | undefined;
  try {
    record = parsePublishedRecord(JSON.parse(text));
  } catch {
    record = undefined;
  }
  if (!record) {
    throw new ContentIndexError([
      {
        code: 'config_invalid',
        file: PUBLISHED_RECORD_FILE,
        message: 'is not a record of published versions ({ "versions": { "v1": { "published_at": "…" } } })',
        hint: `restore it from version control (git checkout -- ${PUBLISHED_RECORD_FILE}); the build writes it, nobody should need to edit it`,
      },
    ]);
  }
  return { record, text };
}

/** Replaces the file in one step, so an interrupted build never leaves half a record. */
export async function writePublishedRecord(root: string, record: PublishedRecord): Promise<void> {
  const target = join(root, PUBLISHED_RECORD_FILE);
  const staging = `${target}.${process.pid}.tmp`;
  try {
    await writeFile(staging, renderPublishedRecord(record));
    await rename(staging, target);
  } finally {
    await rm(staging, { force: true });
  }
}
