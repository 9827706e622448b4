import type { Command } from 'commander';
import { formatProblems } from './core/errors.ts';
import { SERIALIZERS, type SerializerRegistry } from './core/serializers/registry.ts';
import { checkSnapshots, writeSnapshot } from './stages/schema-snapshots.ts';

export interface SchemaCommandIo {
  print(text: string): void;
  printErr(text: string): void;
  setExitCode(code: number): void;
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
    .action(async () => {
      const problems = await checkSnapshots(serializers, Object.keys(serializers));
      if (problems.length > 0) {
        io.printErr(formatProblems(problems));
        io.setExitCode(1);
        return;
      }
      io.print(`✓ ${Object.keys(serializers).join(', ')}: the schemas keep the shape of their snapshots`);
    });
  schema
    .command('snapshot')
    .description("freeze a version's current schema as its snapshot (after a deliberate, compatible change)")
    .argument('<version>', 'e.g. v1')
    .action(async (version: string) => {
      const serializer = serializers[version];
      if (!serializer) {
        io.printErr(
          `✗ ${version} has no serializer; known versions: ${Object.keys(serializers).join(', ')}\n  hint: register it in build/core/serializers/registry.ts first`,
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
