internal import Foundation

/// A compiled `MATCHES` pattern: an ICU regular expression that must match
/// the whole string.
///
/// The match runs under a budget (``PredicateLimits/regexBudget``): ICU
/// reports progress every few thousand backtracking steps, and a match that
/// is still undecided after the budget's number of reports stops with a
/// ``ValueFault``, never with "no match". A match that ICU itself abandons
/// (its backtracking stack is full) is the same error.
struct RegexPattern: @unchecked Sendable {
  // @unchecked: NSRegularExpression is immutable after creation and documented
  // as safe to use from several threads at once.
  /// The anchored expression; nil for the empty pattern, which ICU refuses
  /// and which matches only the empty string.
  private let expression: NSRegularExpression?
  private let folding: StringFolding?
  /// The pattern as written, for messages.
  private let pattern: String
  /// Progress reports allowed per match.
  private let budget: Int

  /// Compiles the pattern.
  ///
  /// - Throws: The message of ICU's complaint when the pattern is invalid.
  init(_ pattern: String, options: ComparisonSyntax.Options, budget: Int) throws(ValueFault) {
    var flags: NSRegularExpression.Options = []
    if options.contains(.caseInsensitive) && !options.contains(.normalized) {
      flags.insert(.caseInsensitive)
    }
    // [d] folds the pattern's text and the subject alike; [c] is the
    // expression's own case-insensitive flag, which knows character classes.
    var diacritics = ComparisonSyntax.Options.diacriticInsensitive
    if options.contains(.normalized) { diacritics.insert(.normalized) }
    folding = options.contains(.diacriticInsensitive) ? StringFolding(diacritics) : nil
    self.pattern = pattern
    self.budget = max(1, budget)
    let text = folding?.fold(pattern) ?? pattern
    guard !text.isEmpty else {
      expression = nil
      return
    }
    do {
      expression = try Self.anchored(text, flags: flags)
    } catch {
      throw ValueFault(.invalidPattern, "invalid regular expression \(Self.quoted(pattern))")
    }
  }

  /// The pattern wrapped as `\A(?:…)\z`, so that a match covers the whole
  /// string, with whatever ends a construct the pattern leaves open at its
  /// end in between: a `#` comment of the `(?x)` mode runs to the end of
  /// the line, and `\Q` quotes to `\E`. Which one is needed is found by
  /// appending an empty group and counting groups: a suffix that a comment
  /// or a quote swallows adds none.
  private static func anchored(
    _ text: String, flags: NSRegularExpression.Options
  ) throws -> NSRegularExpression {
    // Checked alone first: wrapped, `a)|(b` would be accepted.
    let groups = try NSRegularExpression(pattern: text, options: flags).numberOfCaptureGroups
    for terminator in ["", "\n", "\\E", "\\E\n"] {
      let probe = try? NSRegularExpression(pattern: text + terminator + "()", options: flags)
      if probe?.numberOfCaptureGroups == groups + 1 {
        return try NSRegularExpression(pattern: "\\A(?:" + text + terminator + ")\\z", options: flags)
      }
    }
    throw ValueFault(.invalidPattern, "unterminated pattern")
  }

  private static func quoted(_ pattern: String) -> ExpressionSyntax {
    ExpressionSyntax(.constant(.string(pattern)))
  }

  /// Whether the whole of `subject` matches.
  ///
  /// - Throws: ``PredicateEvaluationError/Code/limitExceeded`` when the
  ///   match outruns its budget or ICU abandons it.
  func matches(_ subject: String) throws(ValueFault) -> Bool {
    let text = folding?.fold(subject) ?? subject
    guard let expression else { return text.isEmpty }
    let range = NSRange(location: 0, length: text.utf16.count)
    var matched = false
    var reports = 0
    var exhausted = false
    var abandoned = false
    let budget = budget
    expression.enumerateMatches(in: text, options: [.reportProgress], range: range) { result, flags, stop in
      if result != nil {
        matched = true
        stop.pointee = true
      } else if flags.contains(.internalError) {
        abandoned = true
        stop.pointee = true
      } else if flags.contains(.progress) {
        reports += 1
        if reports > budget {
          exhausted = true
          stop.pointee = true
        }
      }
    }
    if matched { return true }
    if exhausted || abandoned {
      let reason =
        exhausted
        ? "exceeded its budget of \(budget) progress steps" : "was abandoned by the regular expression engine"
      throw ValueFault(
        .limitExceeded,
        "matching \(Self.quoted(pattern)) against a string of \(range.length) UTF-16 units \(reason);"
          + " the answer is unknown")
    }
    return false
  }
}
