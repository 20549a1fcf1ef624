/// A key's read closure as a ``KeyReader``: how the compiler fuses the
/// comparisons of a key whose resolver gave a closure, with the same
/// ``FusedComparison`` that a resolver's own ``KeyReader`` gets.
///
/// A comparison whose value falls outside its shortcut calls the closure up
/// to three times (its probe, its test's fast path, its general test), as
/// it reads a ``KeyReader``.
struct ClosureKeyReader<Object>: KeyReader {
  let closure: @Sendable (Object) -> FilterValue

  init(_ closure: @escaping @Sendable (Object) -> FilterValue) {
    self.closure = closure
  }

  func read(_ object: Object) -> FilterValue { closure(object) }
}
