/// A problem found while computing with values, before the compiler or the
/// evaluator attaches the position of the expression that caused it.
@usableFromInline
package struct ValueFault: Error, Sendable {
  /// The kind of problem, as evaluation errors report it.
  package var code: PredicateEvaluationError.Code
  /// What is wrong, without the position.
  package var message: String

  init(_ code: PredicateEvaluationError.Code, _ message: String) {
    self.code = code
    self.message = message
  }

  static func typeMismatch(_ message: String) -> ValueFault { ValueFault(.typeMismatch, message) }
}
