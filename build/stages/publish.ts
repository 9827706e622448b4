import { relative } from 'node:path';
import { ContentIndexError, isContentIndexError, type Problem } from '../core/errors.ts';
import type { OutputFile } from '../core/output/outputs.ts';
import {
  PUBLISHED_RECORD_FILE,
  recordPublished,
  renderPublishedRecord,
} from '../core/versions/published-record.ts';
import type { McpOutput } from './mcp-output.ts';
import { PRIVATE_DIR } from './output/place.ts';
import { writePublishedRecord } from './published-record.ts';
import type { Setup } from './setup.ts';
import { type OutputStep, writeOutput } from './write.ts';
import {
  recoverHeldPrivateFiles,
  type StagedPrivateFiles,
  stagePrivateFiles,
  writePrivateFiles,
} from './write-private.ts';

/**
 * The output folder as a new generation (stages/write.ts), with the /mcp data (`mcp`, when this build
 * writes it) written in full beforehand and put in place by {@link publishPrivate} after the switch: a
 * failure to write it leaves both as they were. Returns the write's warnings (those about its inputs
 * apart: stages/write.ts) and the staged data.
 */
export async function publishOutput(
  setup: Setup,
  files: readonly OutputFile[],
  options: {
    onOutputStep?: (step: OutputStep) => void;
    cache?: unknown;
    mcp?: McpOutput;
    publishFirst?: boolean;
  },
): Promise<{ warnings: Problem[]; standing: Problem[]; staged?: StagedPrivateFiles }> {
  let staged: StagedPrivateFiles | undefined;
  try {
    // A deploy of another folder killed before it put the served build's data back: put it back now.
    await recoverHeldPrivateFiles(setup.root);
    if (options.mcp) staged = await stagePrivateFiles(setup.root, options.mcp.files);
    const written = await writeOutput(setup.outDir, files, {
      root: setup.root,
      ...(setup.staticDir !== undefined && { staticDir: setup.staticDir }),
      apiReference: setup.config.apiReference.path,
      generatorCopies: setup.author.generatorCopies,
      ...(options.onOutputStep && { onStep: options.onOutputStep }),
      // --no-cache: a build from nothing copies every static file too.
      ...(options.cache === false && { reuseStatic: false }),
      // dev (which alone serves first) writes the same large files again at its next save.
      ...(options.publishFirst && { keepEncoded: true }),
    });
    return { warnings: written.warnings, standing: written.standing, ...(staged && { staged }) };
  } catch (error) {
    await staged?.discard();
    throw outputFailed(error, setup);
  }
}

/**
 * After the output switched: the /mcp data into `.content-index/`, staged before the switch (or, when
 * the output was served first, written now).
 */
export async function publishPrivate(
  setup: Setup,
  mcp: StagedPrivateFiles | McpOutput | undefined,
): Promise<void> {
  try {
    if (mcp && 'commit' in mcp) await mcp.commit();
    else if (mcp) await writePrivateFiles(setup.root, mcp.files);
  } catch (error) {
    throw mcpDataFailed(error, setup);
  }
}

/** The versions this build publishes for the first time; written to `versions.lock.json` unless a dry run. */
export async function recordVersions(setup: Setup, write: boolean): Promise<string[]> {
  const record = recordPublished(setup.headers.record.record, setup.lifecycle);
  // After the output, so the record never lists a version this build failed to write.
  if (write && renderPublishedRecord(record.record) !== setup.headers.record.text) {
    await writePublishedRecord(setup.root, record.record).catch((error: unknown) => {
      throw new ContentIndexError(
        [
          {
            code: 'output_failed',
            file: PUBLISHED_RECORD_FILE,
            message: `could not be written: ${error instanceof Error ? error.message : String(error)}`,
            hint: `the output was written; fix the permissions and build again so ${PUBLISHED_RECORD_FILE} records ${record.added.join(', ') || 'the published versions'}`,
          },
        ],
        { outputChanged: true },
      );
    });
  }
  return record.added;
}

/** The output folder switched, then the /mcp data could not be put in place: said as it is. */
function mcpDataFailed(error: unknown, setup: Setup): Error {
  const shown = relative(setup.root, setup.outDir) || '.';
  return new ContentIndexError(
    [
      {
        code: 'output_failed',
        file: PRIVATE_DIR,
        message: `could not take this build's /mcp data: ${error instanceof Error ? error.message : String(error)}; ${shown} holds this build, /mcp still serves the previous one`,
        hint: 'check free disk space and permissions, then build again to bring /mcp in step',
      },
    ],
    { outputChanged: true },
  );
}

function outputFailed(error: unknown, setup: Setup): Error {
  if (isContentIndexError(error)) return error;
  return new ContentIndexError([
    {
      code: 'output_failed',
      file: relative(setup.root, setup.outDir) || '.',
      message: `could not write the output: ${error instanceof Error ? error.message : String(error)}`,
      hint: 'check free disk space and permissions; the previous output was left as it was',
    },
  ]);
}
