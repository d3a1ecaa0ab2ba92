import { useState } from 'react'
import type { Contract } from '../api/client'
import { CardForm } from './card-form'
import { PixPanel } from './pix-panel'

type Open = 'replace' | 'pay' | 'pix' | null

/**
 * Paying on a contract whose partner collects through Amparo: Trocar cartão, Pagar parcela (by
 * card) and Pagar com PIX, each opening its panel below the buttons.
 */
export function Paying({ contract }: { contract: Contract }) {
  const [open, setOpen] = useState<Open>(null)
  const { own_gateway, replace_card, pay_by_card, pix } = contract.paying
  if (!own_gateway || (!open && !replace_card && !pay_by_card && !pix)) return null
  const overdue = contract.installments.some((i) => i.payable && i.overdue)
  const payTitle = overdue ? 'Pagar parcela em atraso' : 'Pagar com cartão'
  const close = () => setOpen(null)
  const toggle = (panel: Exclude<Open, null>) => setOpen(open === panel ? null : panel)
  return (
    <>
      {open === null ? (
        <div className="actions">
          {pay_by_card ? (
            <button type="button" className="btn primary" onClick={() => toggle('pay')}>
              {payTitle}
            </button>
          ) : null}
          {pix ? (
            <button type="button" className="btn primary" onClick={() => toggle('pix')}>
              Pagar com PIX
            </button>
          ) : null}
          {replace_card ? (
            <button type="button" className="btn" onClick={() => toggle('replace')}>
              Trocar cartão
            </button>
          ) : null}
        </div>
      ) : null}
      {open === 'replace' || open === 'pay' ? (
        <CardForm
          contract={contract}
          mode={open}
          title={open === 'replace' ? 'Trocar cartão' : payTitle}
          onClose={close}
        />
      ) : null}
      {open === 'pix' ? <PixPanel contract={contract} onClose={close} /> : null}
    </>
  )
}
