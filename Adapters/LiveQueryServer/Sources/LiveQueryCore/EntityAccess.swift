import ObjectGraph
import PredicateDSL
import WatchFormats

/// What one session may read of one entity: its read predicate with the
/// session's claims substituted and constant comparisons folded, and its
/// readable attributes in schema order.
struct EntityAccess: Sendable {
  let entity: String
  /// The folded read predicate; its top-level conjuncts are what the
  /// watcher's master filter indexes (`owner == 'u1'`).
  let read: PredicateSyntax
  let readable: [String]
  let readableSet: Set<String>

  /// The client's predicate ANDed with the read predicate, as one flat
  /// conjunction, so that every conjunct of either is a top-level one.
  func restricting(_ client: PredicateSyntax?) -> PredicateSyntax {
    let clientParts = client.map(Self.conjuncts) ?? []
    switch read.kind {
    case .constant(true):
      return client ?? PredicateSyntax(.constant(true))
    case .constant(false):
      return read
    default:
      let parts = Self.conjuncts(read) + clientParts
      return parts.count == 1 ? parts[0] : PredicateSyntax(.and(parts))
    }
  }

  private static func conjuncts(_ syntax: PredicateSyntax) -> [PredicateSyntax] {
    if case .and(let parts) = syntax.kind { return parts }
    return [syntax]
  }

  /// The snapshot's readable attribute values as a JSON object, in schema
  /// order.
  func values(of snapshot: ObjectSnapshot) -> JSONValue {
    .object(readable.map { ($0, JSONValue(snapshot[$0] ?? .null)) })
  }

  /// The readable keys among `keys`, in their order.
  func readableKeys(_ keys: [String]) -> [String] { keys.filter(readableSet.contains) }

  /// Refuses a predicate, a sort key or a section key that reads a key the
  /// session may not read, or reads through the object itself (`SELF`).
  /// Only a key path's first component is checked: it must be a readable
  /// attribute, so what follows applies to that attribute's value.
  func checkKeys(_ keyPaths: [String], id: String) throws(LiveError) {
    for path in keyPaths {
      let first = String(path.prefix { $0 != "." })
      guard readableSet.contains(first) else {
        throw LiveError(
          id: id, code: .keyNotReadable,
          message: "\(entity) has no readable key '\(first)'; the readable keys are \(readable.joined(separator: ", "))"
        )
      }
    }
  }
}
