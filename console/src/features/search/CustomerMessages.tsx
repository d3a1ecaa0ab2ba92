import { useQueries } from '@tanstack/react-query'
import { type Answer, get } from '../../api/client'
import { label, MESSAGE_KIND_LABELS, MESSAGE_STATE_LABELS, when } from '../../format'
import { Badge, ErrorBox, TableWrap } from '../../ui'

type Message = Answer<'listCustomerMessages'>['data'][number]

const TONES = { sent: 'ok', pending: 'warn', kept: 'info', failed: 'bad' } as const

/** The e-mails Amparo wrote to a person (as each partner's customer), newest first, and their state. */
export function CustomerMessages({ customerIds }: { customerIds: number[] }) {
  const answers = useQueries({
    queries: customerIds.map((id) => ({
      queryKey: ['customer-messages', id],
      queryFn: () => get<Answer<'listCustomerMessages'>>(`/api/customers/${id}/messages`),
    })),
  })
  const error = answers.find((a) => a.error)?.error
  const messages: Message[] = answers
    .flatMap((a) => a.data?.data ?? [])
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id)
  return (
    <>
      <h3>Mensagens ao cliente</h3>
      <ErrorBox error={error} />
      {messages.length === 0 && answers.every((a) => a.isSuccess) ? (
        <p className="muted">Nenhuma mensagem enviada.</p>
      ) : null}
      {messages.length > 0 ? (
        <TableWrap label="Mensagens ao cliente">
          <table className="list">
            <thead>
              <tr>
                <th scope="col">Mensagem</th>
                <th scope="col">Situação</th>
                <th scope="col">Para</th>
                <th scope="col">Quando</th>
              </tr>
            </thead>
            <tbody>
              {messages.map((m) => (
                <tr key={m.id}>
                  <th scope="row">
                    {label(MESSAGE_KIND_LABELS, m.kind)}
                    <div className="small muted">{m.subject}</div>
                  </th>
                  <td>
                    <Badge tone={TONES[m.state]}>{label(MESSAGE_STATE_LABELS, m.state)}</Badge>
                    {m.state !== 'sent' && m.attempts > 0 ? (
                      <div className="small muted">
                        {m.attempts} {m.attempts === 1 ? 'tentativa' : 'tentativas'}
                      </div>
                    ) : null}
                  </td>
                  <td>{m.to}</td>
                  <td>{when(m.sent_at ?? m.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : null}
    </>
  )
}
