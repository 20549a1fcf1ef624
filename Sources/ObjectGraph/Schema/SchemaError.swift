import PredicateDSL

/// A schema that cannot be used, with every problem found.
public struct SchemaError: Error, Hashable, Sendable, CustomStringConvertible {
  /// One line per problem: `"Person.employer: unknown destination entity 'Firm'"`.
  public var problems: [String]

  /// Creates an error.
  public init(problems: [String]) { self.problems = problems }

  /// `invalid schema: 2 problems: …; …`.
  public var description: String {
    let count = problems.count == 1 ? "1 problem" : "\(problems.count) problems"
    return "invalid schema: \(count): " + problems.joined(separator: "; ")
  }
}
