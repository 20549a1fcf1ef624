import Foundation
package import PredicateDSL

/// A tiny tree-walking evaluator of predicates on key-value records, written
/// for clarity rather than speed, to check the compiled evaluator against.
///
/// It shares the value primitives (equality, ordering, arithmetic, functions,
/// folding) with the library, whose own tests pin them down, and re-implements
/// everything the compiler specialises: the operators, options, `LIKE`,
/// `MATCHES`, membership, quantifiers, key paths, subqueries and constant
/// folding (it folds nothing).
package enum ReferenceInterpreter {
  /// Why the interpreter stopped: Apple would raise here.
  package struct Failure: Error, CustomStringConvertible {
    /// What went wrong.
    package var description: String
  }

  /// Evaluates `predicate` on `object`, with `$VARIABLES` from `variables`.
  package static func evaluate(
    _ predicate: PredicateSyntax, on object: FilterValue, variables: [String: FilterValue] = [:]
  ) throws(Failure) -> Bool {
    do {
      return try test(predicate, object, variables)
    } catch let fault as ValueFault {
      throw Failure(description: fault.message)
    } catch let failure as Failure {
      throw failure
    } catch {
      throw Failure(description: "\(error)")
    }
  }

  static func test(
    _ predicate: PredicateSyntax, _ object: FilterValue, _ variables: [String: FilterValue]
  ) throws -> Bool {
    switch predicate.kind {
    case .constant(let value): return value
    case .not(let inner): return try !test(inner, object, variables)
    case .and(let parts):
      for part in parts where try !test(part, object, variables) { return false }
      return true
    case .or(let parts):
      for part in parts where try test(part, object, variables) { return true }
      return false
    case .comparison(let comparison):
      let lhs = try value(comparison.lhs, object, variables)
      let rhs = try value(comparison.rhs, object, variables)
      if comparison.quantifier == .direct {
        return try compare(lhs, comparison.operator, comparison.options, rhs)
      }
      guard let elements = lhs.collectionElements else { throw Failure(description: "quantifier on a non-collection") }
      // Elements are tried in order and the first decisive one stops the
      // loop, as Apple's enumeration does.
      for element in elements {
        let result = try compare(element, comparison.operator, comparison.options, rhs)
        switch comparison.quantifier {
        case .all where !result: return false
        case .none where result: return false
        case .any where result: return true
        default: continue
        }
      }
      return comparison.quantifier != .any
    }
  }

  static func compare(
    _ lhs: FilterValue, _ operation: ComparisonSyntax.Operator, _ options: ComparisonSyntax.Options, _ rhs: FilterValue
  ) throws -> Bool {
    let folding = StringFolding(options)
    func fold(_ text: String) -> [UInt8] { Array((folding?.fold(text) ?? text).utf8) }
    func equal(_ a: FilterValue, _ b: FilterValue) -> Bool {
      if case .string(let x) = a, case .string(let y) = b { return fold(x) == fold(y) }
      return FilterValue.predicateEqual(a, b)
    }
    func strings(_ name: String) throws -> (String, String)? {
      switch (lhs, rhs) {
      case (.null, _), (_, .null): return nil
      case (.string(let a), .string(let b)): return (a, b)
      default: throw Failure(description: "\(name) on non-strings")
      }
    }
    switch operation {
    case .equal: return equal(lhs, rhs)
    case .notEqual: return !equal(lhs, rhs)
    case .less, .lessOrEqual, .greater, .greaterOrEqual:
      let sign: Int?
      if case .string(let a) = lhs, case .string(let b) = rhs {
        let (x, y) = (fold(a), fold(b))
        sign = x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
      } else {
        sign = try FilterValue.predicateOrder(lhs, rhs)
      }
      guard let sign else { return false }
      switch operation {
      case .less: return sign < 0
      case .lessOrEqual: return sign <= 0
      case .greater: return sign > 0
      default: return sign >= 0
      }
    case .beginsWith, .endsWith:
      guard let (a, b) = try strings(operation.text) else { return false }
      let (x, y) = (fold(a), fold(b))
      guard !y.isEmpty, y.count <= x.count else { return false }
      return operation == .beginsWith ? Array(x.prefix(y.count)) == y : Array(x.suffix(y.count)) == y
    case .contains:
      if lhs.isNull || rhs.isNull { return false }
      if case .string(let a) = lhs {
        guard case .string(let b) = rhs else { throw Failure(description: "CONTAINS on a string with a non-string") }
        return containsBytes(fold(a), fold(b))
      }
      guard let elements = lhs.collectionElements else { throw Failure(description: "CONTAINS on a non-collection") }
      return elements.contains { equal($0, rhs) }
    case .in:
      if lhs.isNull || rhs.isNull { return false }
      if case .string(let b) = rhs {
        guard case .string(let a) = lhs else { throw Failure(description: "IN a string with a non-string") }
        return containsBytes(fold(b), fold(a))
      }
      guard let elements = rhs.collectionElements else { throw Failure(description: "IN a non-collection") }
      return elements.contains { equal(lhs, $0) }
    case .like:
      guard let (a, b) = try strings("LIKE") else { return false }
      return like(Array((folding?.fold(a) ?? a).unicodeScalars)[...], pattern(folding?.fold(b) ?? b)[...])
    case .matches:
      guard let (a, b) = try strings("MATCHES") else { return false }
      var flags: NSRegularExpression.Options = []
      if options.contains(.caseInsensitive), !options.contains(.normalized) { flags.insert(.caseInsensitive) }
      let diacritics = options.contains(.diacriticInsensitive) && !options.contains(.normalized)
      func strip(_ text: String) -> String {
        diacritics
          ? text.folding(options: .diacriticInsensitive, locale: nil).precomposedStringWithCanonicalMapping : text
      }
      guard b.isEmpty || (try? NSRegularExpression(pattern: strip(b), options: flags)) != nil else {
        throw Failure(description: "invalid pattern")
      }
      return wholeMatch(regex: strip(b), flags: flags, strip(a))
    case .between:
      guard case .array(let bounds) = rhs, bounds.count == 2 else { throw Failure(description: "BETWEEN bounds") }
      let low = try FilterValue.predicateOrder(lhs, bounds[0])
      let high = try FilterValue.predicateOrder(lhs, bounds[1])
      guard let low, let high else { return false }
      return low >= 0 && high <= 0
    case .utiConformsTo, .utiEquals:
      throw Failure(description: "unsupported")
    }
  }

  /// A whole-string match. The empty pattern, which ICU refuses, matches
  /// only the empty string; a pattern that may end inside a `(?x)` comment
  /// gets a line break before the closing anchor.
  static func wholeMatch(regex pattern: String, flags: NSRegularExpression.Options, _ subject: String) -> Bool {
    guard !pattern.isEmpty else { return subject.isEmpty }
    let end = pattern.contains("#") && pattern.contains("(?x") ? "\n" : ""
    guard let regex = try? NSRegularExpression(pattern: "\\A(?:" + pattern + end + ")\\z", options: flags) else {
      return false
    }
    return regex.firstMatch(in: subject, range: NSRange(location: 0, length: subject.utf16.count)) != nil
  }

  static func containsBytes(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, needle.count <= haystack.count else { return false }
    return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
  }

  enum PatternElement: Equatable { case scalar(Unicode.Scalar), one, run }

  static func pattern(_ text: String) -> [PatternElement] {
    var elements: [PatternElement] = []
    var escaped = false
    for scalar in text.unicodeScalars {
      if escaped {
        elements.append(.scalar(scalar))
        escaped = false
      } else if scalar == "\\" {
        escaped = true
      } else {
        elements.append(scalar == "*" ? .run : scalar == "?" ? .one : .scalar(scalar))
      }
    }
    if escaped { elements.append(.scalar("\\")) }
    return elements
  }

  /// Plain recursive wildcard matching.
  static func like(_ subject: ArraySlice<Unicode.Scalar>, _ pattern: ArraySlice<PatternElement>) -> Bool {
    guard let first = pattern.first else { return subject.isEmpty }
    switch first {
    case .run:
      return (subject.startIndex...subject.endIndex).contains { like(subject[$0...], pattern.dropFirst()) }
    case .one:
      return !subject.isEmpty && like(subject.dropFirst(), pattern.dropFirst())
    case .scalar(let scalar):
      return subject.first == scalar && like(subject.dropFirst(), pattern.dropFirst())
    }
  }

  static func value(
    _ expression: ExpressionSyntax, _ object: FilterValue, _ variables: [String: FilterValue]
  ) throws -> FilterValue {
    switch expression.kind {
    case .constant(let constant): return constant
    case .evaluatedObject: return object
    case .keyPath(let path):
      return try object.applying(path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)[...])
    case .variable(let name):
      guard let bound = variables[name] else { throw Failure(description: "unbound $\(name)") }
      return bound
    case .member(let base, let path):
      return try value(base, object, variables).applying(
        path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)[...])
    case .index(let base, .at(let index)):
      return try Indexing.element(of: value(base, object, variables), at: value(index, object, variables))
    case .index(let base, let position):
      return try Indexing.apply(position, to: value(base, object, variables))
    case .aggregate(let elements):
      return .array(try elements.map { try value($0, object, variables) })
    case .negation(let operand):
      return try Arithmetic.negate(value(operand, object, variables))
    case .arithmetic(let operation, let lhs, let rhs):
      return try Arithmetic.apply(operation, value(lhs, object, variables), value(rhs, object, variables))
    case .function(let function, let arguments):
      return try FunctionCall.apply(function, arguments.map { try value($0, object, variables) })
    case .cast(let operand, let type):
      return try Casting.cast(value(operand, object, variables), to: type)
    case .ternary(let condition, let then, let otherwise):
      return try test(condition, object, variables)
        ? value(then, object, variables) : value(otherwise, object, variables)
    case .subquery(let collection, let variable, let predicate):
      guard let elements = try value(collection, object, variables).collectionElements else {
        throw Failure(description: "SUBQUERY on a non-collection")
      }
      var inner = variables
      return .array(
        try elements.filter { element in
          inner[variable] = element
          return try test(predicate, element, inner)
        })
    }
  }
}
