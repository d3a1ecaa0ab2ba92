import type { Trx } from '../../db/database.js'
import { type FieldErrors, ValidationError } from '../../shared/errors.js'
import { alreadyProtected, deviceKey } from './device.rules.js'
import { type ContractTime, claimDevices, type Holder } from './device-protection.repository.js'

export type { ContractTime, Holder } from './device-protection.repository.js'

/** A serial number or IMEI a contract names, with the body field it came in and its label. */
export interface DeviceField {
  field: string
  label: string
  value: string | null | undefined
}

/**
 * Gives `holder` the protection of each named device (docs/decisions.md, Devices), in the caller's transaction,
 * or throws a 422 under every field whose device already has an active protection anywhere in the
 * service (another partner's by real time, whatever `time.now` says); the caller's transaction
 * then rolls back with whatever it wrote. Called after the holder's row is written, since the
 * protection names it.
 */
export async function protectDevices(
  trx: Trx,
  holder: Holder,
  fields: DeviceField[],
  time: ContractTime,
): Promise<void> {
  const named = fields.flatMap(({ field, label, value }) => {
    const key = value ? deviceKey(value) : ''
    return key ? [{ field, label, key }] : []
  })
  if (named.length === 0) return
  const taken = await claimDevices(
    trx,
    named.map((n) => n.key),
    holder,
    time,
  )
  const errors: FieldErrors = {}
  for (const { field, label, key } of named) if (!taken.has(key)) errors[field] = [alreadyProtected(label)]
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
}
