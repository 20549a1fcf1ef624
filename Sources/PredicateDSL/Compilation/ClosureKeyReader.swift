/// A key's read closure as a ``KeyReader``: how the compiler fuses the
/// comparisons of a key whose resolver gave a closure, with the same
/// ``FusedComparison`` that a resolver's own ``KeyReader`` gets.
///
/// A comparison whose value falls outside its shortcut calls the closure
/// twice (its test's fast path, then its general test); the compiler keeps
/// no probe for such a key.
struct ClosureKeyReader<Object>: KeyReader {
  let closure: @Sendable (Object) -> FilterValue

  init(_ closure: @escaping @Sendable (Object) -> FilterValue) {
    self.closure = closure
  }

  func read(_ object: Object) -> FilterValue { closure(object) }
}
