import { AppError } from '../../shared/errors.js'

/** The record changed under the operator's screen (another operator decided the claim first). */
export class DecisionConflictError extends AppError {
  constructor(message: string) {
    super('decision_conflict', message)
  }
}
