import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The sample site's configuration imports `content-index` as a user's does; in-process tests read it
    // from the sources, like everything else they import.
    alias: [
      { find: /^content-index$/, replacement: fileURLToPath(new URL('./build/index.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['tests/**/*.test.ts'],
    // The CLI, the Pages Functions and the packed tarball run dist/: rebuilt first when a source changed.
    globalSetup: ['tests/helpers/dist.ts'],
    // Server tests start workerd; give them room on a 2-core CI machine.
    // A timeout bounds a hang and times nothing: tests that run wrangler several times (a D1 import
    // starts it four times) took over a minute on a runner loaded to 6-9.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // One process runs its share of the files one after another, keeping the modules they import: a
    // fresh process per file re-imported the build's modules each time (about 70 s of the suite's CPU,
    // which is the bound on a 2-core machine). No test leaves state behind (environment variables,
    // working directory, spies are restored in `finally`).
    isolate: false,
    // Most files wait on wrangler, workerd, hugo or git rather than compute: two at a time keep a 2-core
    // machine busy (Vitest's default there is one, and the suite then took over ten minutes).
    maxWorkers: 2,
  },
});
