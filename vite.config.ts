import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

// The renderer: built to dist/renderer and loaded from file:// by Electron or served by `rightsize serve`.
export default defineConfig({
  root: 'src-renderer',
  base: './',
  plugins: [svelte()],
  build: { outDir: '../dist/renderer', emptyOutDir: true, target: 'chrome120', sourcemap: true },
});
