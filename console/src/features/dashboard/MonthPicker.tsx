import { MONTH_NAMES, zoneMonth } from '../../format'

/** The years the period can start or end in: from the service's first till next year. */
const FIRST_YEAR = 2024

/**
 * A month as two lists, month names in pt-BR and years: `<input type="month">` would follow the
 * browser's own language (Chromium's picker), not the console's.
 */
export function MonthPicker({
  label,
  value,
  onChange,
}: {
  label: string
  value: string
  onChange: (ym: string) => void
}) {
  const [year = '', mon = ''] = value.split('-')
  const last = Number(zoneMonth(0).slice(0, 4)) + 1
  const years = Array.from({ length: last - FIRST_YEAR + 1 }, (_, i) => String(FIRST_YEAR + i))
  if (year && !years.includes(year)) years.unshift(year)
  return (
    <fieldset className="month-picker">
      <legend>{label}</legend>
      <select
        aria-label={`${label}: mês`}
        value={mon}
        onChange={(e) => onChange(`${year}-${e.target.value}`)}
      >
        {MONTH_NAMES.map((name, i) => {
          const code = String(i + 1).padStart(2, '0')
          return (
            <option key={code} value={code}>
              {name}
            </option>
          )
        })}
      </select>
      <select
        aria-label={`${label}: ano`}
        value={year}
        onChange={(e) => onChange(`${e.target.value}-${mon}`)}
      >
        {years.map((y) => (
          <option key={y} value={y}>
            {y}
          </option>
        ))}
      </select>
    </fieldset>
  )
}
