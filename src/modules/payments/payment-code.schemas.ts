import { Type } from 'typebox'
import { Money, named } from '../../http/http-schemas.js'

const CodeStatus = Type.Enum(['pending', 'paid', 'expired', 'failed', 'canceled'], {
  description:
    '`pending` until paid or expired; `paid` once the gateway says the payment succeeded; `expired` past `expires_at` unpaid (a new one may then be asked for); `failed` or `canceled` when the gateway ended it.',
})

export const PixCode = named(
  'PixCode',
  Type.Object(
    {
      id: Type.Integer({
        description: 'The payment’s id (the sandbox pays it: `POST /sandbox/payments/{id}/pay`).',
      }),
      status: CodeStatus,
      amount: Money('Amount to pay.'),
      qr_code: Type.String({ description: 'The PIX copia-e-cola text: paste it in any bank app.' }),
      qr_code_png: Type.String({
        format: 'uri',
        description:
          'Address on Amparo of the QR code as a PNG image; needs no token (its address is unguessable).',
      }),
      expires_at: Type.String({
        description: 'When the code stops being payable, `YYYY-MM-DD HH:MM:SS` in the service time zone.',
      }),
    },
    {
      examples: [
        {
          id: 81,
          status: 'pending',
          amount: 54,
          qr_code: '00020126580014BR.GOV.BCB.PIX0136…6304ABCD',
          qr_code_png: 'https://api.amparo.example/pix/Jm1tX2ZjR0hZa2V4U3c.png',
          expires_at: '2026-11-21 11:20:00',
        },
      ],
    },
  ),
)

export const Boleto = named(
  'Boleto',
  Type.Object(
    {
      id: Type.Integer({
        description: 'The payment’s id (the sandbox pays it: `POST /sandbox/payments/{id}/pay`).',
      }),
      status: CodeStatus,
      amount: Money('Amount to pay.'),
      number: Type.String({ description: 'The boleto’s digitable line.' }),
      pdf_url: Type.String({ description: 'The boleto to print, as the gateway renders it.' }),
      expires_at: Type.String({
        description: 'The end of its last payable day, `YYYY-MM-DD HH:MM:SS` in the service time zone.',
      }),
    },
    {
      examples: [
        {
          id: 82,
          status: 'pending',
          amount: 989.89,
          number: '23793381286000000000300000000401184340000098989',
          pdf_url: 'https://payments.stripe.com/boleto/voucher/test_…/pdf',
          expires_at: '2026-11-25 00:00:00',
        },
      ],
    },
  ),
)

/** How the code answers describe a repeat and the states (the routes' descriptions share it). */
export const CODE_RULES = `At most one pending code per installment or plan: asking again while it is payable answers the same one
with 200; once it has expired (or the gateway ended it) a new one is made → 201. Paid when the gateway says
the payment succeeded (Stripe's \`payment_intent.succeeded\`, received at \`POST /stripe/webhooks\`; in the
test environment with the sandbox gateway, \`POST /sandbox/payments/{id}/pay\`): the installment or plan
is then \`paid\` with \`paid_with\` saying how, and its \`*.paid\` event goes out.`
