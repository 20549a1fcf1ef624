// What the benchmarks (Benchmarks/) and the instruction-count driver of
// Scripts/profile-predicates.sh measure, in one place, so that the wall-clock
// and instruction figures are of the same predicates and closures. The
// script compiles this file beside its driver: it may import only
// PredicateDSL.

public import PredicateDSL

/// The predicates the benchmarks parse and evaluate.
public enum BenchmarkPredicates {
  /// Five clauses, 140 bytes: the parser's mid-sized input.
  public static let parsedFiveClauses =
    #"name BEGINSWITH[c] "Joan" AND age >= 21 AND status IN {"active", "trialing"} AND score BETWEEN {10, 99999} AND email ENDSWITH ".example.org""#

  /// Five clauses over a `StoredPerson`'s first five fields, which
  /// `fiveClausesStored` writes by hand.
  public static let evaluatedFiveClauses =
    #"age > 30 AND name BEGINSWITH "A" AND status IN {"active", "trial"} AND score BETWEEN {10, 90} AND email ENDSWITH ".org""#

  /// The five clauses and five more over fields 5 to 9, which
  /// `tenClausesStored` writes by hand.
  public static let evaluatedTenClauses =
    evaluatedFiveClauses
    + #" AND active == YES AND city != "Oslo" AND level <= 5 AND balance > 0.5 AND country == "NO""#

  /// Flat chains of varied clauses, about `bytes` long.
  public static func longPredicate(bytes: Int) -> String {
    let clauses = [
      #"name BEGINSWITH[c] "Jo""#, "age >= 21", #"status IN {"active", "trial"}"#,
      "score BETWEEN {10, 99}", #"email ENDSWITH ".org""#, "tags.@count > 2",
      "(price * quantity) - discount <= 100", "ANY items.sku == 42",
    ]
    var text = ""
    var index = 0
    while text.utf8.count < bytes {
      if !text.isEmpty { text += index % 3 == 0 ? " OR " : " AND " }
      text += clauses[index % clauses.count]
      index += 1
    }
    return text
  }
}

/// A person stored as the object graph stores objects: values by slot
/// (name, age, score, status, email, then any others).
public final class StoredPerson: Sendable {
  /// The values, by slot.
  public let values: [FilterValue]
  /// Creates a person from its values, by slot.
  public init(_ values: [FilterValue]) { self.values = values }
}

// Internal: the hand-written closures below read values with these; the
// benchmarks define their own, so that no client of this target sees them.
extension FilterValue {
  /// The integer, or nil for any other value.
  var intValue: Int64? { if case .int(let value) = self { value } else { nil } }
  /// The double, or nil for any other value.
  var doubleValue: Double? { if case .double(let value) = self { value } else { nil } }
  /// The string, or nil for any other value.
  var stringValue: String? { if case .string(let value) = self { value } else { nil } }
  /// The Boolean, or nil for any other value.
  var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
}

/// `BenchmarkPredicates.evaluatedFiveClauses`, written by hand over the
/// same storage: the baseline the compiled filter is compared with.
@Sendable public func fiveClausesStored(_ p: StoredPerson) -> Bool {
  guard let age = p.values[1].intValue, age > 30 else { return false }
  guard let name = p.values[0].stringValue, name.hasPrefix("A") else { return false }
  guard let status = p.values[3].stringValue, status == "active" || status == "trial" else { return false }
  guard let score = p.values[2].doubleValue, score >= 10.0, score <= 90.0 else { return false }
  guard let email = p.values[4].stringValue else { return false }
  return email.hasSuffix(".org")
}

/// `BenchmarkPredicates.evaluatedTenClauses`, written by hand over the
/// same storage (fields 5 to 9: active, city, level, balance, country).
@Sendable public func tenClausesStored(_ p: StoredPerson) -> Bool {
  guard fiveClausesStored(p) else { return false }
  guard p.values[5].boolValue == true, p.values[6].stringValue != "Oslo" else { return false }
  guard let level = p.values[7].intValue, level <= 5 else { return false }
  guard let balance = p.values[8].doubleValue, balance > 0.5 else { return false }
  return p.values[9].stringValue == "NO"
}
