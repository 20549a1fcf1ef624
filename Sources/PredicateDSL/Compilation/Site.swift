/// Where an expression is, to turn a ``ValueFault`` into a positioned error.
@usableFromInline
struct Site: Sendable {
  let range: SyntaxRange
  let source: String?

  func evaluationError(_ fault: ValueFault) -> PredicateEvaluationError {
    PredicateEvaluationError(fault.code, fault.message, at: range, source: source)
  }

  func compileError(_ fault: ValueFault) -> PredicateCompileError {
    let code: PredicateCompileError.Code =
      switch fault.code {
      case .typeMismatch, .notACollection: .typeMismatch
      case .invalidPattern: .invalidPattern
      default: .invalidConstant
      }
    return PredicateCompileError(code, fault.message, at: range)
  }

  /// Runs a value operation, positioning its fault.
  @inline(__always)
  func run<T>(_ body: () throws(ValueFault) -> T) throws(PredicateEvaluationError) -> T {
    do {
      return try body()
    } catch {
      throw evaluationError(error)
    }
  }

  /// Runs a value operation at compile time, positioning its fault.
  @inline(__always)
  func fold<T>(_ body: () throws(ValueFault) -> T) throws(PredicateCompileError) -> T {
    do {
      return try body()
    } catch {
      throw compileError(error)
    }
  }
}
