public import PredicateDSL

/// What a session may read of one entity: a read predicate over the object
/// and the token's claims, and the attributes each role may read.
///
/// The read predicate names claims as variables (`owner == $sub OR $role ==
/// 'admin'`); a session substitutes its claims (a missing claim is nil) and
/// ANDs the result onto each of its subscriptions and watches of the entity.
public struct EntityReadPolicy: Hashable, Sendable {
  /// The read predicate, variables unsubstituted.
  public var read: PredicateSyntax
  /// The text it was parsed from.
  public var readSource: String
  /// The attributes each role may read; the role `*` stands for every
  /// role not listed. A role with no entry may not read the entity.
  public var attributes: [String: [String]]

  /// Creates a policy from the read predicate's text.
  ///
  /// - Throws: `PredicateParseError` when the text is not a predicate.
  public init(read: String, attributes: [String: [String]]) throws(PredicateParseError) {
    self.read = try PredicateParser.parse(read)
    readSource = read
    self.attributes = attributes
  }

  /// The attributes `role` may read: its own entry, else the `*` entry,
  /// else none.
  public func readableAttributes(role: String?) -> [String] {
    role.flatMap { attributes[$0] } ?? attributes["*"] ?? []
  }
}
