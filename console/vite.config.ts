import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

const root = fileURLToPath(new URL('.', import.meta.url))

// The console is served by `amparo serve` under a strict Content-Security-Policy: every script and
// stylesheet is a file (no inline <script>/<style>, no eval), fonts are the system's.
export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/console-web', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:3001' } },
})
