import type { Db } from '../../../src/db/database.js'
import { retryingTransaction } from '../../../src/db/transaction.js'
import { importCatalog } from '../../../src/modules/catalog/catalog-import.js'

// The catalog every world sells from: brands and models with their default LMI (in reais, as the
// catalog import takes them); inactive models are there to be refused.

const NOW = '2026-11-21T12:00:00.000Z'

export const TEST_CATALOG = {
  brands: [
    {
      name: 'Apple',
      models: [
        { name: 'iPhone 16 Pro', default_lmi: 8999 },
        { name: 'iPhone 15', default_lmi: 4999.9 },
        { name: 'iPhone 12', default_lmi: 2500, active: false },
      ],
    },
    {
      name: 'Samsung',
      models: [
        { name: 'Galaxy S25', default_lmi: 6499 },
        { name: 'Galaxy A15', default_lmi: 1199 },
      ],
    },
    { name: 'Nokia', models: [{ name: '3310', default_lmi: 299, active: false }] },
  ],
}

export async function seedCatalog(db: Db) {
  await retryingTransaction(db, (trx) => importCatalog(trx, TEST_CATALOG, NOW))
  const models = await db
    .selectFrom('models')
    .innerJoin('brands', 'brands.id', 'models.brand_id')
    .select(['models.id', 'models.name', 'brands.name as brand', 'brands.id as brand_id'])
    .execute()
  const model = (name: string) => {
    const found = models.find((m) => m.name === name)
    if (!found) throw new Error(`no model ${name}`)
    return found
  }
  return { model }
}
