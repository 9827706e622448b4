/**
 * The built-in validators compiled ahead of time. In the sources there are none (validators.ts compiles
 * them at run time); scripts/build-dist.mjs replaces this module in the bundle with ajv's standalone code
 * for every schema of validators.ts (validators-standalone.ts writes it).
 */
export const PRECOMPILED: Readonly<Record<string, unknown>> | undefined = undefined;
