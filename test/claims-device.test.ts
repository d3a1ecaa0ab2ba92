import { describe, expect, it } from 'vitest'
import { uniqueImei } from './helpers/bodies.js'
import {
  type ClaimBody,
  call,
  ctx,
  ok,
  openClaim,
  paidSubscription,
  seller,
  theft,
  useClaimsWorld,
} from './helpers/claims-world.js'

// A subscription may be contracted before its device's serial is known (both serials are optional,
// README, Subscriptions), or name it by its second serial only: a claim shows what the contract
// names, and a contract naming no device never counts as the same device as another.

useClaimsWorld()

const signalsOf = async (id: number) => {
  const row = await ctx.db
    .selectFrom('claims')
    .select('fraud_signals')
    .where('id', '=', id)
    .executeTakeFirstOrThrow()
  return JSON.parse(row.fraud_signals) as string[]
}

describe('a claim on a contract whose device has no serial number', () => {
  it('opens with device.serial_number null, and two such devices are not one device', async () => {
    const [first, second] = [await seller(), await seller()]
    const ids = [
      await paidSubscription(first, { serials: {} }),
      await paidSubscription(second, { serials: { serial_number: null, second_serial_number: null } }),
    ]
    const claims = [
      await openClaim(first, theft(ids[0] as number)),
      await openClaim(second, theft(ids[1] as number)),
    ]
    for (const claim of claims)
      expect(claim.device).toEqual({
        model: { id: expect.any(Number), name: 'iPhone 16 Pro' },
        serial_number: null,
      })
    const shown = await ok<ClaimBody>(second, 'GET', `/claims/${claims[1]?.id}`)
    expect(shown.device.serial_number).toBeNull()
    expect(await signalsOf(claims[1]?.id as number)).not.toContain('repeat_device')
  })

  it('shows the second serial (an IMEI) when the contract names only that one', async () => {
    const s = await seller()
    const imei = uniqueImei()
    const id = await paidSubscription(s, { serials: { second_serial_number: imei } })
    const claim = await openClaim(s, theft(id))
    expect(claim.device.serial_number).toBe(imei)
    const page = await ok<{ data: ClaimBody[] }>(s, 'GET', `/claims?filter[subscription_id]=${id}`)
    expect(page.data.map((c) => c.device.serial_number)).toEqual([imei])
  })
})

describe('a device written with look-alikes', () => {
  it('is the same device for repeat_device: Cyrillic letters and Arabic-Indic digits', async () => {
    const [first, second] = [await seller(), await seller()]
    const digits = String(process.pid).padStart(6, '0')
    const latin = await paidSubscription(first, { serials: { serial_number: `ABCXKE ${digits}` } })
    const earlier = await openClaim(first, theft(latin))
    await ok(first, 'POST', `/claims/${earlier.id}/withdraw`)
    const canceled = await call(first, 'POST', `/subscriptions/${latin}/cancellation`, {
      reason: 'Trocou de loja.',
    })
    expect(canceled.statusCode, canceled.body).toBe(200)
    // The same handset, its serial typed in Cyrillic capitals and Arabic-Indic digits.
    const arabic = [...digits].map((d) => String.fromCodePoint(0x0660 + Number(d))).join('')
    const lookAlike = await paidSubscription(second, { serials: { serial_number: `АВСХКЕ-${arabic}` } })
    const claim = await openClaim(second, theft(lookAlike))
    expect(claim.device.serial_number).toBe(`АВСХКЕ-${arabic}`)
    expect(await signalsOf(claim.id)).toContain('repeat_device')
    expect(await signalsOf(earlier.id)).not.toContain('repeat_device')
  })
})
