import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

// The renderer: built to dist/renderer and loaded from file:// by Electron or served by `rightsize serve`.
export default defineConfig({
  root: 'src-renderer',
  base: './',
  plugins: [svelte()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'chrome120',
    sourcemap: true,
    // stdlib's CommonJS modules look side-effectful to Rollup; the renderer never calls the t
    // distribution the analysis imports, so they are dropped unless used (400 KB instead of 515).
    rollupOptions: { treeshake: { moduleSideEffects: (id) => !id.includes('/node_modules/@stdlib/') } },
  },
});
