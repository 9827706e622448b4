import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Server tests start workerd; give them room on a 2-core CI machine.
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
  },
});
