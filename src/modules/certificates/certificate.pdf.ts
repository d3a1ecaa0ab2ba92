/** Everything a certificate prints, already in the words and figures it prints them in. */
export interface CertificateContent {
  title: string
  policyNumber: string
  contract: string
  planName: string
  insured: { name: string; document: string }
  device: { model: string; serials: { label: string; value: string }[] }
  coverages: { name: string; lmi: string }[]
  franchise: string
  term: string
  payment: string
  /** How it was paid (the first installment's or the plan's `paid_with` label); null while unpaid. */
  paidWith: string | null
  premium: string
  partner: string
  store: string
  claimSteps: string[]
  issuedOn: string
  verification: { code: string; url: string }
}

const MARGIN = 56
const INK = '#1f2933'
const MUTED = '#52606d'
const ACCENT = '#0b5394'
const RULE = '#cbd2d9'

/**
 * The certificate as a PDF (A4, pdfkit's built-in Helvetica: its WinAnsi encoding covers
 * Portuguese). A section is a small-caps heading over label/value lines.
 */
export async function renderCertificatePdf(content: CertificateContent): Promise<Buffer> {
  // Loaded at the first certificate: its fonts' metrics are 6 MB of heap that every process would
  // otherwise carry and pay for in garbage collection (docs/benchmarks.md, Today's figures).
  const { default: PDFDocument } = await import('pdfkit')
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: { Title: `${content.title} ${content.policyNumber}`, Author: 'Amparo', Subject: content.planName },
  })
  const chunks: Buffer[] = []
  doc.on('data', (chunk: Buffer) => chunks.push(chunk))
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)))
    doc.on('error', reject)
  })
  const width = doc.page.width - 2 * MARGIN

  doc.font('Helvetica-Bold').fontSize(18).fillColor(ACCENT).text(content.title)
  doc.moveDown(0.2)
  doc.font('Helvetica').fontSize(10).fillColor(MUTED).text(`${content.planName} · ${content.contract}`)
  doc.moveDown(0.6)
  doc.font('Helvetica-Bold').fontSize(13).fillColor(INK).text(`Apólice nº ${content.policyNumber}`)

  const section = (heading: string) => {
    doc.moveDown(0.9)
    const y = doc.y
    doc
      .moveTo(MARGIN, y)
      .lineTo(MARGIN + width, y)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke()
    doc.moveDown(0.4)
    doc
      .font('Helvetica-Bold')
      .fontSize(9)
      .fillColor(ACCENT)
      .text(heading.toUpperCase(), { characterSpacing: 0.8 })
    doc.moveDown(0.3)
  }
  const line = (label: string, value: string) => {
    doc.font('Helvetica-Bold').fontSize(10).fillColor(INK).text(`${label}: `, { continued: true })
    doc.font('Helvetica').text(value)
  }

  section('Segurado')
  line('Nome', content.insured.name)
  line('Documento', content.insured.document)

  section('Dispositivo')
  line('Modelo', content.device.model)
  for (const serial of content.device.serials) line(serial.label, serial.value)

  section('Coberturas')
  for (const coverage of content.coverages) line(coverage.name, `LMI ${coverage.lmi}`)
  line('Franquia', content.franchise)

  section('Vigência e prêmio')
  line('Vigência', content.term)
  line('Pagamento', content.payment)
  if (content.paidWith) line('Forma de pagamento', content.paidWith)
  line('Prêmio', content.premium)

  section('Parceiro e loja')
  line('Parceiro', content.partner)
  line('Loja', content.store)

  section('Como acionar o seguro')
  doc.font('Helvetica').fontSize(10).fillColor(INK)
  content.claimSteps.forEach((step, index) => {
    doc.text(`${index + 1}. ${step}`, { width, paragraphGap: 2 })
  })

  section('Autenticidade')
  line('Emitido em', content.issuedOn)
  line('Código de verificação', content.verification.code)
  doc.font('Helvetica').fontSize(10).fillColor(INK).text('Confira em: ', { continued: true })
  doc.fillColor(ACCENT).text(content.verification.url, { link: content.verification.url, underline: false })

  doc.end()
  return done
}
