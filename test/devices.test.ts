import { beforeAll, describe, expect, it } from 'vitest'
import type { ErrorBody } from './helpers/bodies.js'
import { customerBody } from './helpers/bodies.js'
import { imei } from './helpers/documents.js'
import { useTestApp } from './helpers/test-app.js'
import {
  ANNUAL,
  bearer,
  createCustomer,
  login,
  partnerWithToken,
  seedCatalog,
  seedPlan,
  TOTAL_12X,
} from './helpers/world.js'

// Devices (docs/decisions.md, Devices): one active protection per device across the service, and serials informed later.

const NOW = new Date('2026-11-21T15:00:00.000Z')

let now = NOW
let modelId: number
/** IMEIs no other test of this file uses. */
let serial = 900_000
const nextImei = () => imei(++serial)

interface Seller {
  partnerId: number
  token: string
  customer: number
  plan: number
  login(): Promise<string>
}
const sellers: Seller[] = []

async function newSeller(): Promise<Seller> {
  const { partner, token } = await partnerWithToken(ctx.app, ctx.db)
  const customer = await createCustomer(ctx.app, token, customerBody())
  const plan = await seedPlan(ctx.db, partner.id, TOTAL_12X)
  await seedPlan(ctx.db, partner.id, ANNUAL)
  return {
    partnerId: partner.id,
    token,
    customer: customer.id,
    plan: plan.id,
    login: () => login(ctx.app, partner),
  }
}

function call(method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, token: string, payload?: unknown) {
  return ctx.app.inject({
    method,
    url,
    headers: bearer(token),
    ...(payload === undefined ? {} : { payload: payload as object }),
  })
}

const subscription = (s: Seller, devices: Record<string, unknown>) =>
  call('POST', '/subscriptions', s.token, {
    plan_id: s.plan,
    customer_id: s.customer,
    model_id: modelId,
    ...devices,
  })

const annualPlan = (s: Seller, devices: Record<string, unknown>) =>
  call('POST', '/annual-plans', s.token, {
    model_id: modelId,
    customer_id: s.customer,
    payment: { method: 'pix' },
    ...devices,
  })

async function created(response: Awaited<ReturnType<typeof call>>): Promise<number> {
  expect(response.statusCode, response.body).toBe(201)
  return response.json().id
}

/** The 422's errors, checked to name neither partner nor contract. */
function refusal(response: Awaited<ReturnType<typeof call>>): Record<string, string[]> {
  expect(response.statusCode, response.body).toBe(422)
  const body = response.json() as ErrorBody
  for (const message of Object.values(body.errors ?? {}).flat()) {
    expect(message).not.toMatch(/partner|subscription \d|plan \d|\d{3,}/i)
  }
  return body.errors ?? {}
}

const HELD = /already has an active protection/

const ctx = useTestApp({ clock: { now: () => now }, env: { AMPARO_LOGIN_RATE_LIMIT: '100000' } })
beforeAll(async () => {
  modelId = (await seedCatalog(ctx.db)).model('iPhone 16 Pro').id
  for (let i = 0; i < 3; i++) sellers.push(await newSeller())
})

describe('one active protection per device', () => {
  it('10 concurrent annual plans for one IMEI, from three partners: exactly one is contracted', async () => {
    const device = nextImei()
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => annualPlan(sellers[i % 3] as Seller, { imei: device })),
    )
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, ...Array(9).fill(422)])
    for (const answer of answers.filter((a) => a.statusCode === 422)) {
      expect(refusal(answer).imei?.[0]).toMatch(HELD)
    }
    const rows = await ctx.db.selectFrom('annual_plans').select('id').where('imei', '=', device).execute()
    expect(rows).toHaveLength(1)
  })

  it('10 concurrent subscriptions for one serial, written ten ways: exactly one is contracted', async () => {
    const ways = ['SN-77-ab', 'sn77ab', ' Sn 77 AB ', 'sn.77.ab', 'SN77AB']
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        subscription(sellers[i % 3] as Seller, { serial_number: ways[i % ways.length] }),
      ),
    )
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, ...Array(9).fill(422)])
    for (const answer of answers.filter((a) => a.statusCode === 422)) {
      expect(refusal(answer).serial_number?.[0]).toMatch(HELD)
    }
  })

  it('compares without case, spaces or punctuation, across products and second serials', async () => {
    const [a, b] = sellers as [Seller, Seller]
    await created(await subscription(a, { serial_number: 'ABC-123 ' }))
    expect(refusal(await subscription(b, { serial_number: 'abc123' })).serial_number?.[0]).toMatch(HELD)
    expect(
      refusal(await subscription(b, { serial_number: 'xyz-1', second_serial_number: 'a b c 1 2 3' })),
    ).toEqual({ second_serial_number: [expect.stringMatching(HELD)] })
    // An IMEI in a subscription's serial is the same device as an annual plan's IMEI.
    const device = nextImei()
    await created(await annualPlan(a, { imei: device }))
    const dashed = `${device.slice(0, 2)}-${device.slice(2, 8)}-${device.slice(8, 14)}-${device.slice(14)}`
    expect(refusal(await subscription(b, { serial_number: dashed })).serial_number?.[0]).toMatch(HELD)
    const second = nextImei()
    await created(await subscription(b, { serial_number: 'phone-2', second_serial_number: second }))
    expect(refusal(await annualPlan(a, { imei: nextImei(), imei_2: second }))).toEqual({
      imei_2: [expect.stringMatching(HELD)],
    })
    // The refused contracts wrote nothing, not even the serial that was free.
    await created(await subscription(a, { serial_number: 'xyz-1' }))
  })

  it('a canceled subscription frees its serials', async () => {
    const [a, b] = sellers as [Seller, Seller]
    const id = await created(
      await subscription(a, { serial_number: 'FREE-1', second_serial_number: 'FREE-2' }),
    )
    expect(refusal(await subscription(b, { serial_number: 'free1' })).serial_number).toBeDefined()
    const canceled = await call('POST', `/subscriptions/${id}/cancellation`, a.token, { reason: 'troca' })
    expect(canceled.statusCode, canceled.body).toBe(200)
    await created(await subscription(b, { serial_number: 'free1' }))
    await created(await annualPlan(a, { imei: nextImei(), imei_2: undefined }))
    // Taken again: the canceled subscription does not count, the new one does.
    expect(refusal(await subscription(a, { serial_number: 'FREE-1' })).serial_number).toBeDefined()
    await created(await subscription(a, { serial_number: 'FREE-2' }))
  })

  it('a paid subscription keeps its serial', async () => {
    const [a, b] = sellers as [Seller, Seller]
    const id = await created(await subscription(a, { serial_number: 'PAID-1' }))
    const [first] = (await call('GET', `/subscriptions/${id}/installments`, a.token)).json()
    const paid = await call('POST', `/subscriptions/${id}/installments/${first.id}/notify-payment`, a.token)
    expect(paid.statusCode, paid.body).toBe(200)
    expect(refusal(await subscription(b, { serial_number: 'paid-1' })).serial_number).toBeDefined()
  })

  it('an annual plan frees its IMEI once canceled, or once its cover has ended', async () => {
    const [a, b] = sellers as [Seller, Seller]
    const canceledImei = nextImei()
    const id = await created(await annualPlan(a, { imei: canceledImei }))
    const requested = await call('PUT', `/annual-plans/${id}/cancellation`, a.token, {})
    expect(requested.statusCode, requested.body).toBe(200)
    // Requested only: the plan still protects the device until the cancellation is confirmed.
    expect(refusal(await annualPlan(b, { imei: canceledImei })).imei).toBeDefined()
    const { protocol } = requested.json()
    const confirmed = await call('POST', `/annual-plans/${id}/cancellation/${protocol}`, a.token)
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    await created(await annualPlan(b, { imei: canceledImei }))

    const endedImei = nextImei()
    const plan = await created(await annualPlan(a, { imei: endedImei }))
    const paid = await call('POST', `/annual-plans/${plan}/notify-payment`, a.token)
    expect(paid.statusCode, paid.body).toBe(200)
    const { ends_at } = await ctx.db
      .selectFrom('annual_plans')
      .select('ends_at')
      .where('id', '=', plan)
      .executeTakeFirstOrThrow()
    // Protected until its cover ends, whether the worker has persisted `expired` or not.
    const body = { model_id: modelId, customer_id: b.customer, imei: endedImei, payment: { method: 'pix' } }
    try {
      now = new Date(new Date(ends_at as string).getTime() - 1000)
      expect(refusal(await call('POST', '/annual-plans', await b.login(), body)).imei).toBeDefined()
      now = new Date(ends_at as string)
      await created(await call('POST', '/annual-plans', await b.login(), body))
    } finally {
      now = NOW
    }
  })

  it('judges another partner’s cover at real time, whatever the contracting partner’s clock says', async () => {
    const [a, b] = [await newSeller(), await newSeller()]
    const device = nextImei()
    const plan = await created(await annualPlan(a, { imei: device }))
    const paid = await call('POST', `/annual-plans/${plan}/notify-payment`, a.token)
    expect(paid.statusCode, paid.body).toBe(200)
    // B's sandbox clock moves 400 days on, past the end of A's cover on B's calendar.
    const later = await call('POST', '/sandbox/clock/advance', b.token, { days: 400 })
    expect(later.statusCode, later.body).toBe(200)
    expect(refusal(await annualPlan(b, { imei: device })).imei?.[0]).toMatch(HELD)
    expect(refusal(await subscription(b, { serial_number: device })).serial_number?.[0]).toMatch(HELD)
    const own = await created(await subscription(b, {}))
    const patched = await call('PATCH', `/subscriptions/${own}`, b.token, { serial_number: device })
    expect(refusal(patched).serial_number?.[0]).toMatch(HELD)
    // A's own clock past the end of its cover frees the device for A.
    const ended = await call('POST', '/sandbox/clock/advance', a.token, { days: 400 })
    expect(ended.statusCode, ended.body).toBe(200)
    await created(await annualPlan(a, { imei: device }))
  }, 120_000)
})

/** `digits` in another script's decimal digits: its zero's code point (Arabic-Indic ٠ is 0x0660). */
const inScript = (digits: string, zero: number) =>
  digits.replace(/\d/g, (d) => String.fromCodePoint(zero + Number(d)))
const ARABIC_INDIC = 0x0660
const DEVANAGARI = 0x0966
const NOT_LATIN = /must be Latin letters and digits/

describe('serials written in other scripts', () => {
  it('an IMEI in Arabic-Indic or Devanagari digits is the insured device, in a subscription or an annual plan', async () => {
    const [a, b] = sellers as [Seller, Seller]
    const device = nextImei()
    await created(await annualPlan(a, { imei: device }))
    for (const written of [inScript(device, ARABIC_INDIC), inScript(device, DEVANAGARI)]) {
      expect(refusal(await subscription(b, { serial_number: written })).serial_number?.[0]).toMatch(HELD)
      // An annual plan's IMEI is 15 ASCII digits: any other writing of it is refused.
      expect(refusal(await annualPlan(b, { imei: written })).imei).toBeDefined()
    }
    const serial = `${nextImei()}`
    await created(await subscription(a, { serial_number: inScript(serial, ARABIC_INDIC) }))
    expect(refusal(await subscription(b, { serial_number: serial })).serial_number?.[0]).toMatch(HELD)
  })

  it('Cyrillic and Greek look-alike letters are the insured device', async () => {
    const [a, b] = sellers as [Seller, Seller]
    const n = String(serial++)
    await created(await subscription(a, { serial_number: `ABCXKE ${n}` }))
    for (const written of [`АВСХКЕ ${n}`, `ΑΒCΧΚΕ-${n}`, `AВCXКE${inScript(n, ARABIC_INDIC)}`]) {
      expect(refusal(await subscription(b, { serial_number: written })).serial_number?.[0]).toMatch(HELD)
    }
  })

  it('refuses a serial that is not Latin letters and digits once read so', async () => {
    const [a] = sellers as [Seller]
    for (const written of ['序列号-123', '📱ABC123', 'ДЖ-12']) {
      expect(refusal(await subscription(a, { serial_number: written }))).toEqual({
        serial_number: [expect.stringMatching(NOT_LATIN)],
      })
    }
  })

  it('PATCH: the insured device in another script is refused, and so is a serial of other letters', async () => {
    const [a, b] = sellers as [Seller, Seller]
    const device = nextImei()
    await created(await annualPlan(a, { imei: device }))
    const id = await created(await subscription(b, {}))
    expect(
      refusal(
        await call('PATCH', `/subscriptions/${id}`, b.token, {
          serial_number: inScript(device, ARABIC_INDIC),
        }),
      ),
    ).toEqual({ serial_number: [expect.stringMatching(HELD)] })
    expect(
      refusal(await call('PATCH', `/subscriptions/${id}`, b.token, { serial_number: '序列号' })),
    ).toEqual({
      serial_number: [expect.stringMatching(NOT_LATIN)],
    })
    // A serial set in Cyrillic is set: the same device in Latin letters changes nothing.
    const n = String(serial++)
    const ok = await call('PATCH', `/subscriptions/${id}`, b.token, { second_serial_number: `РНОТО-${n}` })
    expect(ok.statusCode, ok.body).toBe(200)
    const again = await call('PATCH', `/subscriptions/${id}`, b.token, { second_serial_number: `photo ${n}` })
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().device.second_serial_number).toBe(`РНОТО-${n}`)
  })
})

describe('PATCH /subscriptions/{id}', () => {
  it('sets a serial not set yet, and repeats the same without change', async () => {
    const [a] = sellers as [Seller]
    const id = await created(await subscription(a, {}))
    const patched = await call('PATCH', `/subscriptions/${id}`, a.token, { serial_number: ' LATER-1 ' })
    expect(patched.statusCode, patched.body).toBe(200)
    expect(patched.json()).toMatchObject({
      id,
      device: { serial_number: 'LATER-1', second_serial_number: null },
    })
    const again = await call('PATCH', `/subscriptions/${id}`, a.token, { serial_number: 'later1' })
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().device.serial_number).toBe('LATER-1')
    const second = await call('PATCH', `/subscriptions/${id}`, a.token, {
      serial_number: 'LATER-1',
      second_serial_number: 'LATER-2',
    })
    expect(second.statusCode, second.body).toBe(200)
    expect(second.json().device).toMatchObject({ serial_number: 'LATER-1', second_serial_number: 'LATER-2' })
    const shown = await call('GET', `/subscriptions/${id}`, a.token)
    expect(shown.json().device.second_serial_number).toBe('LATER-2')
  })

  it('refuses changing a set serial, equal serials, a serial without letters or digits', async () => {
    const [a] = sellers as [Seller]
    const id = await created(await subscription(a, { serial_number: 'SET-1' }))
    expect(refusal(await call('PATCH', `/subscriptions/${id}`, a.token, { serial_number: 'SET-2' }))).toEqual(
      {
        serial_number: ['The serial number is already set and cannot be changed.'],
      },
    )
    expect(refusal(await call('PATCH', `/subscriptions/${id}`, a.token, { serial_number: null }))).toEqual({
      serial_number: ['The serial number is already set and cannot be changed.'],
    })
    expect(
      refusal(await call('PATCH', `/subscriptions/${id}`, a.token, { second_serial_number: 'set 1' })),
    ).toEqual({ second_serial_number: ['The second serial number and serial number must be different.'] })
    expect(
      refusal(await call('PATCH', `/subscriptions/${id}`, a.token, { second_serial_number: ' -/- ' })),
    ).toEqual({
      second_serial_number: [
        'The second serial number must be Latin letters and digits (A-Z, 0-9); spaces and punctuation are ignored.',
      ],
    })
    const unset = await created(await subscription(a, {}))
    expect(
      refusal(
        await call('PATCH', `/subscriptions/${unset}`, a.token, {
          serial_number: 'TWIN-1',
          second_serial_number: 'twin1',
        }),
      ),
    ).toEqual({ second_serial_number: ['The second serial number and serial number must be different.'] })
    const shown = await call('GET', `/subscriptions/${unset}`, a.token)
    expect(shown.json().device).toMatchObject({ serial_number: null, second_serial_number: null })
  })

  it('refuses a serial that has an active protection elsewhere, and writes nothing', async () => {
    const [a, b] = sellers as [Seller, Seller]
    const device = nextImei()
    await created(await annualPlan(b, { imei: device }))
    const id = await created(await subscription(a, {}))
    const errors = refusal(
      await call('PATCH', `/subscriptions/${id}`, a.token, {
        serial_number: 'OWN-9',
        second_serial_number: device,
      }),
    )
    expect(errors).toEqual({ second_serial_number: [expect.stringMatching(HELD)] })
    const shown = await call('GET', `/subscriptions/${id}`, a.token)
    expect(shown.json().device).toMatchObject({ serial_number: null, second_serial_number: null })
    // OWN-9 was not taken by the refused call.
    await created(await subscription(b, { serial_number: 'OWN-9' }))
  })

  it('concurrent PATCHes of one serial on ten subscriptions: exactly one sets it', async () => {
    const [a, b] = sellers as [Seller, Seller]
    const ids = [] as { id: number; seller: Seller }[]
    for (let i = 0; i < 10; i++) {
      const seller = i % 2 ? a : b
      ids.push({ id: await created(await subscription(seller, {})), seller })
    }
    const answers = await Promise.all(
      ids.map(({ id, seller }) =>
        call('PATCH', `/subscriptions/${id}`, seller.token, { serial_number: 'RACE-1' }),
      ),
    )
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, ...Array(9).fill(422)])
    const set = await ctx.db
      .selectFrom('subscriptions')
      .select('id')
      .where('serial_number', '=', 'RACE-1')
      .execute()
    expect(set).toHaveLength(1)
  })

  it('refuses a canceled subscription (errors.status) and another partner’s (404)', async () => {
    const [a, b] = sellers as [Seller, Seller]
    const id = await created(await subscription(a, {}))
    expect((await call('PATCH', `/subscriptions/${id}`, b.token, { serial_number: 'X-1' })).statusCode).toBe(
      404,
    )
    expect(
      (await call('PATCH', '/subscriptions/99999999', a.token, { serial_number: 'X-1' })).statusCode,
    ).toBe(404)
    await call('POST', `/subscriptions/${id}/cancellation`, a.token, {})
    expect(
      Object.keys(refusal(await call('PATCH', `/subscriptions/${id}`, a.token, { serial_number: 'X-1' }))),
    ).toEqual(['status'])
  })

  it('replays under an Idempotency-Key, as other writes do', async () => {
    const [a] = sellers as [Seller]
    const id = await created(await subscription(a, {}))
    const send = (payload: object) =>
      ctx.app.inject({
        method: 'PATCH',
        url: `/subscriptions/${id}`,
        headers: { ...bearer(a.token), 'idempotency-key': `patch-${id}` },
        payload,
      })
    const first = await send({ serial_number: 'KEYED-1' })
    expect(first.statusCode, first.body).toBe(200)
    const replay = await send({ serial_number: 'KEYED-1' })
    expect(replay.headers['idempotent-replayed']).toBe('true')
    expect(replay.body).toBe(first.body)
    expect(refusal(await send({ serial_number: 'KEYED-2' }))).toHaveProperty('Idempotency-Key')
  })
})
