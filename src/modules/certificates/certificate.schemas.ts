import { Type } from 'typebox'

/** The certificate's answer: a PDF. */
export const CertificatePdf = Type.Unsafe<Buffer>({
  description: 'The certificate, a one-page A4 PDF in Portuguese.',
  content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
  headers: {
    'Content-Disposition': {
      type: 'string',
      description: '`inline; filename="certificado-<policy number>.pdf"`.',
    },
    'Cache-Control': { type: 'string', description: '`private, no-store`.' },
  },
})

export const CertificateCodeParams = Type.Object({
  code: Type.String({
    maxLength: 64,
    description:
      'The verification code printed on the certificate: 32 base32 characters (case, spaces and dashes ignored).',
    examples: ['K5QXGZLTMVZXI2LOM5RGC3DBNZSGKZLT'],
  }),
})

export const CertificateVerification = Type.Object(
  {
    valid: Type.Boolean({ description: 'Whether the contract is in force now.' }),
    number: Type.String({ description: 'The policy number, `AMP-<year>-<number>`.' }),
    status: Type.String({
      description:
        'The contract’s status: a subscription’s (`pago`, `canceled`, `expired`) or an annual plan’s (`paid`, `protected`, `expired`, `canceled`).',
    }),
    starts_at: Type.Optional(Type.String({ description: 'When its cover started (service time zone).' })),
    ends_at: Type.Optional(Type.String({ description: 'When its cover ends or ended (service time zone).' })),
  },
  {
    description: 'What a certificate’s code proves, and nothing about who or what is insured.',
    examples: [
      {
        valid: true,
        number: 'AMP-2026-002001',
        status: 'protected',
        starts_at: '2026-11-22 00:00:00',
        ends_at: '2027-11-22 00:00:00',
      },
    ],
  },
)

/** A contract's certificate as its resource shows it: null unless in force (README, Certificates). */
export const ContractCertificate = Type.Union(
  [
    Type.Object({
      url: Type.String({ description: 'The certificate, a PDF (`GET …/certificate`, with the token).' }),
      verification_code: Type.String({
        description: 'The code printed on the certificate: 32 base32 characters, 160 random bits.',
      }),
      verification_url: Type.String({
        description: 'Where anyone checks it without a token (`GET /certificates/{code}`).',
      }),
    }),
    Type.Null(),
  ],
  {
    description:
      'The certificate to hand the customer, with its verification code, so that it can be sent without reading the PDF; null unless the contract is in force.',
  },
)
