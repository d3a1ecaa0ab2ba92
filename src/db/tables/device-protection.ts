/**
 * One row per device that has, or had, a protection (docs/decisions.md, Devices): the device key is the primary
 * key, so two active protections of one device cannot both be written, whatever the concurrency.
 * The row names its holder, a subscription or an annual plan (exactly one). It is not deleted when
 * the protection stops: whether it still holds is read from its holder (canceled, or its cover
 * ended), and the next contract for the device takes the row over.
 */
export interface DeviceProtectionsTable {
  /** `deviceKey` of a serial number or IMEI. */
  device_key: string
  subscription_id: number | null
  annual_plan_id: number | null
  /** When its current holder took it. */
  created_at: string
}
