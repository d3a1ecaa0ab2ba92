import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

const root = fileURLToPath(new URL('.', import.meta.url))

// The insured's portal is served by `amparo serve` under the console's strict Content-Security-Policy:
// every script and stylesheet a file (no inline <script>/<style>, no eval), fonts the system's.
export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/portal-web', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:3002' } },
})
