public import ObjectGraph
public import PredicateDSL

/// Why an object matches a watch or not, clause by clause.
///
/// ```swift
/// print(watcher.explain(ann, for: token.id)!)
/// // Person #3 does not match watch 'seniors' (Person age > 60 AND name BEGINSWITH "A")
/// //   ✓ entity: Person is a Person
/// //   ✗ age > 60          age = 31
/// //   ✓ name BEGINSWITH "A"   name = "Ann"
/// ```
public struct WatchExplanation: Sendable, CustomStringConvertible {
  /// The watch.
  public var watch: WatchID
  /// The watch's label.
  public var label: String
  /// The object.
  public var objectID: ObjectID
  /// Whether the object matches.
  public var matches: Bool
  /// The entity guard first, then the predicate's clauses.
  public var clauses: [Clause]

  /// One clause of the predicate and its outcome; a compound clause holds
  /// its operands.
  public struct Clause: Sendable {
    /// The clause in canonical syntax.
    public var text: String
    /// Its outcome on the object.
    public var outcome: Outcome
    /// The values of the object's keys that the clause reads directly.
    public var values: [(key: String, value: FilterValue)]
    /// The operands of an `AND`, `OR` or `NOT`.
    public var operands: [Clause]
  }

  /// A clause's outcome.
  public enum Outcome: Sendable, Equatable {
    /// True or false.
    case value(Bool)
    /// Evaluation failed, as Apple's would raise; the watch does not match.
    case failed(String)

    var holds: Bool { self == .value(true) }
  }

  /// Explains `entry` on `image` with the watcher's predicate limits, at
  /// the time its clock gives (a `now()` reads it), as the watch itself
  /// would judge the object.
  init(entry: WatchEntry, image: WatchImage, schema: ObjectSchema, limits: PredicateLimits, now: Double) {
    self = EvaluationTime.$now.withValue(now) {
      WatchExplanation(entry: entry, image: image, schema: schema, limits: limits)
    }
  }

  private init(entry: WatchEntry, image: WatchImage, schema: ObjectSchema, limits: PredicateLimits) {
    watch = entry.head ?? entry.id
    label = entry.label
    objectID = image.snapshot.objectID
    let kind = image.layout.isKind(of: entry.entity)
    var clauses = [
      Clause(
        text: "entity: \(image.layout.name) \(kind ? "is" : "is not") a \(entry.entity.name)", outcome: .value(kind),
        values: [], operands: [])
    ]
    let resolver = ObjectKeyResolver<WatchImage>(schema: schema, layout: entry.entity)
    if kind {
      let top: [PredicateSyntax] =
        if case .and(let operands) = entry.predicate.kind { operands } else { [entry.predicate] }
      clauses += top.map { Self.clause($0, image: image, resolver: resolver, source: entry.source, limits: limits) }
    }
    self.clauses = clauses
    matches = clauses.allSatisfy(\.outcome.holds)
  }

  private static func clause(
    _ predicate: PredicateSyntax, image: WatchImage, resolver: ObjectKeyResolver<WatchImage>, source: String?,
    limits: PredicateLimits
  ) -> Clause {
    let outcome: Outcome
    do {
      let filter = try CompiledFilter(predicate, source: source, limits: limits, resolver: resolver)
      outcome = .value(try filter.evaluate(image))
    } catch let error as PredicateEvaluationError {
      outcome = .failed(error.message)
    } catch {
      outcome = .failed("\(error)")
    }
    var operands: [Clause] = []
    switch predicate.kind {
    case .and(let parts), .or(let parts):
      operands = parts.map { clause($0, image: image, resolver: resolver, source: source, limits: limits) }
    case .not(let part):
      operands = [clause(part, image: image, resolver: resolver, source: source, limits: limits)]
    case .comparison, .constant:
      break
    }
    return Clause(text: predicate.description, outcome: outcome, values: values(predicate, image), operands: operands)
  }

  /// The attributes a comparison reads directly from the object.
  private static func values(_ predicate: PredicateSyntax, _ image: WatchImage) -> [(key: String, value: FilterValue)] {
    guard case .comparison(let comparison) = predicate.kind else { return [] }
    var values: [(key: String, value: FilterValue)] = []
    for side in [comparison.lhs, comparison.rhs] {
      if case .keyPath(let key) = side.kind, let value = image.snapshot[key] { values.append((key, value)) }
    }
    return values
  }

  /// A multi-line account, one clause per line, ✓ or ✗ first.
  public var description: String {
    var lines = ["\(objectID) \(matches ? "matches" : "does not match") watch '\(label)'"]
    func add(_ clause: Clause, depth: Int) {
      let mark =
        switch clause.outcome {
        case .value(true): "✓"
        case .value(false): "✗"
        case .failed: "!"
        }
      var line = String(repeating: "  ", count: depth) + "\(mark) \(clause.text)"
      if !clause.values.isEmpty {
        line += "    (" + clause.values.map { "\($0.key) = \($0.value)" }.joined(separator: ", ") + ")"
      }
      if case .failed(let message) = clause.outcome { line += "    failed: \(message)" }
      lines.append(line)
      for operand in clause.operands { add(operand, depth: depth + 1) }
    }
    for clause in clauses { add(clause, depth: 1) }
    return lines.joined(separator: "\n")
  }
}
