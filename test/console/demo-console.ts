/** The console on the demo data, served on free ports (implemented once the console app lands). */
export async function startDemoConsole(): Promise<{
  base: string
  email: string
  password: string
  totpSecret?: string
  claimId?: string
  partnerId?: string
  search?: string
  close: () => Promise<void>
}> {
  throw new Error('the console back end (src/console/app.ts) is not merged yet: use --url')
}
