#!/usr/bin/env node
// The runnable examples of the repository's examples/ folder ship inside the SDK's tarball: compiled to
// dist/examples/*.js (what `oddsbook-client example <name>` runs) beside their TypeScript sources (to read
// and copy). `prepack` runs this after the SDK itself is built; the examples import it by its name.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const clientDir = fileURLToPath(new URL('..', import.meta.url));
const examplesDir = join(clientDir, '..', '..', 'examples');
const outDir = join(clientDir, 'dist', 'examples');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

execFileSync(process.execPath, [tsc, '-p', examplesDir], { stdio: 'inherit' });
mkdirSync(outDir, { recursive: true });
const sources = readdirSync(examplesDir).filter((file) => file.endsWith('.ts'));
for (const file of sources) copyFileSync(join(examplesDir, file), join(outDir, file));
console.error(`build-examples: ${sources.length} examples built into dist/examples`);
