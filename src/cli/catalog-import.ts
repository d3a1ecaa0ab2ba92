import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import { retryingTransaction } from '../db/transaction.js'
import { importCatalog, parseCatalog } from '../modules/catalog/catalog-import.js'
import { attributeAllModels } from '../modules/partners/partner.service.js'
import { type Io, report, UsageError, withDatabase } from './context.js'

export function registerCatalogImport(catalog: Command, io: Io) {
  catalog
    .command('import')
    .description(
      'Upsert brands (by name) and models (by brand and name) from a JSON file; format in the README.',
    )
    .argument('<file>', 'catalog JSON file')
    .option('--attribute-all', 'also let every partner sell every model of the catalog')
    .option('--json', 'print one JSON object')
    .action(async (file: string, options: { attributeAll?: boolean; json?: boolean }) => {
      const content = await readJson(file)
      const parsed = parseCatalog(content)
      const counts = await withDatabase(io, (db) =>
        retryingTransaction(db, async (trx) => {
          const written = await importCatalog(trx, parsed, new Date().toISOString())
          if (options.attributeAll) {
            const partners = await trx.selectFrom('partners').select('id').execute()
            for (const p of partners) await attributeAllModels(trx, p.id)
          }
          return written
        }),
      )
      report(io, options.json, counts, `Imported ${counts.brands} brands and ${counts.models} models.`)
    })
}

async function readJson(file: string): Promise<unknown> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch {
    throw new UsageError(`cannot read ${file}`)
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new UsageError(`${file} is not valid JSON`)
  }
}
