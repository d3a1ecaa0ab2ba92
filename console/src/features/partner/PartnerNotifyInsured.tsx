import { useState } from 'react'
import { useCan } from '../../session'
import { Badge, ErrorBox, Notice, useFocusOn } from '../../ui'
import { useNotifyInsuredSwitch } from './partner.queries'

/**
 * Whether Amparo e-mails the partner's customers: an admin switches it off for a partner that
 * writes to them itself (the portal's sign-in codes and links go either way).
 */
export function PartnerNotifyInsured({ id, on }: { id: string; on: boolean }) {
  const isAdmin = useCan('admin')
  const change = useNotifyInsuredSwitch(id)
  const [done, setDone] = useState<string | null>(null)
  const doneRef = useFocusOn<HTMLDivElement>(done)
  return (
    <section className="panel" aria-labelledby="h-notify">
      <div className="panel-head">
        <h2 id="h-notify">Mensagens aos segurados</h2>
        {isAdmin ? (
          <button
            type="button"
            className={on ? 'btn btn-danger' : 'btn btn-primary'}
            disabled={change.isPending}
            onClick={() => {
              setDone(null)
              change.mutate(!on, {
                onSuccess: (partner) =>
                  setDone(partner.notify_insured ? 'Mensagens ligadas.' : 'Mensagens desligadas.'),
              })
            }}
          >
            {on ? 'Desligar mensagens' : 'Ligar mensagens'}
          </button>
        ) : null}
      </div>
      <ErrorBox error={change.error} />
      {done ? <Notice ref={doneRef}>{done}</Notice> : null}
      <p data-testid="notify-insured">
        {on ? <Badge tone="ok">ligadas</Badge> : <Badge tone="warn">desligadas</Badge>}{' '}
        {on
          ? 'A Amparo envia aos clientes deste parceiro os e-mails de contrato, parcelas, sinistros e cancelamentos.'
          : 'O parceiro escreve aos próprios clientes: a Amparo envia só os códigos e links de acesso ao portal.'}
      </p>
    </section>
  )
}
