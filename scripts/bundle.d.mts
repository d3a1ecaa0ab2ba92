/** Bundles `entry` (the compiled CLI, or its TypeScript source) into `outdir`/amparo.mjs. */
export function bundle(entry: string, outdir: string): Promise<void>
