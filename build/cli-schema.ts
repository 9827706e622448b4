import type { Command } from 'commander';
import { formatProblems } from './core/errors.ts';
import { SERIALIZERS, type SerializerRegistry } from './core/serializers/registry.ts';
import { withDocsPaths } from './runtime/docs-path.ts';
import { checkSnapshots, writeSnapshot } from './stages/schema-snapshots.ts';

export interface SchemaCommandIo {
  print(text: string): void;
  printErr(text: string): void;
  setExitCode(code: number): void;
}

/** True when the file sits in a package installed under node_modules. */
export function isInstalledCopy(file: URL): boolean {
  return file.pathname.split('/').includes('node_modules');
}

/**
 * `content-index schema check` runs the shape guard on every registered version;
 * `content-index schema snapshot <version>` is the only way a snapshot changes.
 */
export function registerSchemaCommands(
  program: Command,
  io: SchemaCommandIo,
  serializers: SerializerRegistry = SERIALIZERS,
): void {
  const schema = program.command('schema').description("guard each version's JSON Schema shape");
  schema
    .command('check')
    .description('compare every version schema with its frozen snapshot')
    .option('--debug', 'print stack traces of internal errors')
    .action(async () => {
      const problems = await checkSnapshots(serializers, Object.keys(serializers));
      if (problems.length > 0) {
        io.printErr(withDocsPaths(formatProblems(problems)));
        io.setExitCode(1);
        return;
      }
      io.print(`✓ ${Object.keys(serializers).join(', ')}: the schemas keep the shape of their snapshots`);
    });
  schema
    .command('snapshot')
    .description("freeze a version's current schema as its snapshot (after a deliberate, compatible change)")
    .argument('<version>', 'e.g. v1')
    .option('--debug', 'print stack traces of internal errors')
    .action(async (version: string) => {
      const serializer = serializers[version];
      if (!serializer) {
        io.printErr(
          `✗ ${version} has no serializer; known versions: ${Object.keys(serializers).join(', ')}\n  hint: register it in build/core/serializers/registry.ts first`,
        );
        io.setExitCode(1);
        return;
      }
      if (isInstalledCopy(serializer.snapshotFile)) {
        // The snapshots are the tool's record of each version's shape; a site changing its installed
        // copy would lose the change on the next install and hide a broken promise from the guard.
        io.printErr(
          `✗ ${version}'s snapshot belongs to the installed content-index package, not to this site\n  hint: a schema change is made in a checkout of content-index and published as a new release`,
        );
        io.setExitCode(1);
        return;
      }
      const { file, changed } = await writeSnapshot(serializer);
      io.print(
        changed ? `✓ wrote ${file}; commit it with the schema change` : `✓ ${file} is already up to date`,
      );
    });
}
