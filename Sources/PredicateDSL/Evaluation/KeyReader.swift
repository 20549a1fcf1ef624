/// Reads one key's value from an object: the fast form of a
/// ``ResolvedKey``'s reader.
///
/// A resolver that returns `ResolvedKey(consuming:type:entity:reader:)` with
/// a `KeyReader` lets the compiler build the direct comparisons of the whole
/// key path with a constant (`age > 30`, `name BEGINSWITH "A"`; not `ANY`,
/// `ALL` or `NONE`, and not a reader that covers only part of the path) in
/// the resolver's module, where `read(_:)` is inlined into the test. Other
/// uses of the key call the reader like a closure. Keep `read(_:)` small (a
/// slot or a stored property) and free of side effects (a comparison whose
/// value falls outside its shortcut reads it up to three times: its probe,
/// its test's fast path and its general test each read it), and make the
/// reader a struct of plain values.
public protocol KeyReader<Object>: Sendable {
  /// The type of the objects read.
  associatedtype Object

  /// The key's value in `object`; a missing value is `.null`.
  func read(_ object: Object) -> FilterValue
}

/// A ``KeyReader`` behind one reference, which a key's read closure and its
/// fuse hook share.
@usableFromInline
final class ReaderBox<Reader: KeyReader>: Sendable {
  @usableFromInline let reader: Reader

  @inlinable init(_ reader: Reader) { self.reader = reader }
}
