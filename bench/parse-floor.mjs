// The floor a build cannot beat: find every content file, read it, and parse its front matter with the
// YAML parser the build uses (js-yaml). Nothing else: no validation, no output.
import { readFileSync } from 'node:fs';
import fg from 'fast-glob';
import yaml from 'js-yaml';

const root = process.argv[2] ?? '.';
const files = await fg('{posts,projects,tips}/**/*.{md,markdown,mdx}', {
  cwd: `${root}/content`,
  absolute: true,
});
let parsed = 0;
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const end = text.indexOf('\n---', 3);
  if (text.startsWith('---') && end > 0 && yaml.load(text.slice(4, end))) parsed++;
}
process.stdout.write(`${JSON.stringify({ files: files.length, parsed })}\n`);
