import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const src = (pkg: string) => fileURLToPath(new URL(`../${pkg}/src/index.ts`, import.meta.url));

/** The web pages: one index.html, Preact components, the workspace packages bundled from their sources. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  resolve: {
    alias: { '@oddsbook/protocol': src('protocol'), '@oddsbook/client': src('client') },
  },
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 1024 },
  logLevel: 'warn',
});
