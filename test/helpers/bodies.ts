import type { Static, TSchema } from 'typebox'
import type { PageOf } from '../../src/shared/pagination.js'

/** A page of one of the API's lists, typed by the same schema that serialises it. */
export type PageBody<T> = Omit<Static<ReturnType<typeof PageOf<TSchema>>>, 'data'> & { data: T[] }

/** The contract's error body: `errors` on 422, `decline_code` on a declined card. */
export interface ErrorBody {
  message: string
  errors?: Record<string, string[]>
  decline_code?: string
  request_id?: string
}
