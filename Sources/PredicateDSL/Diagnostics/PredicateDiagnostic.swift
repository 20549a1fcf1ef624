/// An error found in a predicate's expression: what is wrong, the range of
/// the expression, and the predicate text when it is known, with the
/// renderings that ``PredicateCompileError`` and
/// ``PredicateEvaluationError`` share.
///
/// ```swift
/// func report(_ error: any PredicateDiagnostic) {
///   print(error)                        // predicate:1:1: error: Person has no key 'agee'
///   print(error.detailedDescription())  // the same, with the line and a caret
/// }
/// ```
public protocol PredicateDiagnostic: Error, CustomStringConvertible {
  /// What is wrong, in one sentence without the position.
  var message: String { get }
  /// The UTF-8 range of the offending expression in the predicate text;
  /// ``SyntaxRange/synthesized`` for a tree built in code.
  var range: SyntaxRange { get }
  /// The predicate text, when the predicate was compiled from text; it gives
  /// ``location`` and the caret rendering.
  var source: String? { get }
}

extension PredicateDiagnostic {
  /// Where the error is, when ``source`` is known.
  public var location: PredicateParseError.Location? {
    source.map { DiagnosticText.locate(range, in: $0).location }
  }

  /// One line in compiler style: `predicate:1:1: error: Person has no key
  /// 'agee'`, or `error: … (at offset 0)` without the source.
  public var description: String {
    DiagnosticText.oneLine(message, range: range, source: source)
  }

  /// The error as several lines, with the predicate and a caret under the
  /// offending expression (the one-line form when the source is unknown).
  public func detailedDescription() -> String {
    guard let source else { return description }
    return DiagnosticText.render(message, range: range, source: source)
  }
}
