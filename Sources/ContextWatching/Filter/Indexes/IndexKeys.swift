/// The keys of an equality conjunct, each once: the first inline, so that
/// the common `key == constant` allocates no array (an empty array is a
/// shared singleton).
struct IndexKeys: RandomAccessCollection {
  private let first: IndexKey
  private let rest: [IndexKey]

  init(_ key: IndexKey) {
    first = key
    rest = []
  }

  /// nil for no keys.
  init?(_ keys: [IndexKey]) {
    guard let head = keys.first else { return nil }
    first = head
    rest = keys.count == 1 ? [] : Array(keys.dropFirst())
  }

  var startIndex: Int { 0 }
  var endIndex: Int { 1 + rest.count }
  subscript(position: Int) -> IndexKey { position == 0 ? first : rest[position - 1] }
}
