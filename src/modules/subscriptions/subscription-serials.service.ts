import type { Trx } from '../../db/database.js'
import { type FieldErrors, NotFoundError, StateError, ValidationError } from '../../shared/errors.js'
import type { PartnerTime } from '../../shared/time.js'
import { deviceKey, notADevice, sameDevice } from '../devices/device.rules.js'
import { protectDevices } from '../devices/device-protection.service.js'
import { findSubscriptionSerials, setSerials } from './subscription.repository.js'
import { assertSerialsInformable, statusAt } from './subscription.rules.js'
import type { SerialsBody } from './subscription.schemas.js'
import { SERIALS, serialFields } from './subscription.service.js'

type SerialField = (typeof SERIALS)[number]['field']
const OTHER: Record<SerialField, SerialField> = {
  serial_number: 'second_serial_number',
  second_serial_number: 'serial_number',
}

/**
 * Sets serials "informed later by the insured" (docs/decisions.md, Devices) in the caller's transaction: one
 * not set yet may be set; one that is set may be sent again (as the same device) but not changed.
 * The subscription must not be canceled, and each new serial must not have an active protection
 * elsewhere. Repeating a call that succeeded changes nothing and succeeds again. Read again when
 * a concurrent call set a serial or canceled the subscription meanwhile.
 */
export async function informSerials(
  trx: Trx,
  partnerId: number,
  id: number,
  body: SerialsBody,
  time: PartnerTime & { timeZone: string },
): Promise<void> {
  const { now } = time
  for (let attempt = 1; ; attempt++) {
    const current = await findSubscriptionSerials(trx, partnerId, id)
    if (!current) throw new NotFoundError('Subscription')
    assertSerialsInformable(statusAt(current, now, time.timeZone))
    const changes = serialChanges(current, body)
    if (Object.keys(changes).length === 0) return
    if (await setSerials(trx, id, changes, now)) {
      await protectDevices(trx, { subscriptionId: id }, serialFields(changes), { ...time, partnerId })
      return
    }
    if (attempt >= 3) throw new StateError('The subscription changed while being updated: try again.')
  }
}

/** The serials `body` sets on `current`, or a 422 naming every field it may not set. */
function serialChanges(
  current: Record<SerialField, string | null>,
  body: SerialsBody,
): Partial<Record<SerialField, string>> {
  const errors: FieldErrors = {}
  const changes: Partial<Record<SerialField, string>> = {}
  for (const { field, label } of SERIALS) {
    if (body[field] === undefined) continue
    const given = body[field]?.trim() || null
    const set = current[field]
    if (set !== null) {
      if (given === null || deviceKey(given) !== deviceKey(set)) {
        errors[field] = [`The ${label} is already set and cannot be changed.`]
      }
    } else if (given !== null) {
      if (deviceKey(given)) changes[field] = given
      else errors[field] = [notADevice(label)]
    }
  }
  const after = { ...current, ...changes }
  // Both new and equal: the error goes under the second, as at contracting.
  for (const name of ['second_serial_number', 'serial_number'] as const) {
    if (changes[name] && sameDevice(after[name], after[OTHER[name]])) {
      errors[name] = ['The second serial number and serial number must be different.']
      break
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors)
  return changes
}
