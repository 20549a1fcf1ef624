// A fused comparison's one capture: `GeneralTest` and its one subclass,
// `FusedTest`, which share a file because the subclass exists only to
// extend it.

/// The general test of a fused comparison with its site, behind one
/// reference: the error handling stays out of line, and the fast path loads
/// only the words it compares. Not generic, so that making one from the
/// compiler's unspecialised code needs no generic metadata (a run-time lookup
/// of a few hundred instructions); a ``FusedTest`` made in the resolver's
/// module adds the reader and the constant.
@usableFromInline
class GeneralTest: @unchecked Sendable {
  // Unchecked: the class is not final (``FusedTest`` derives from it); it
  // and its subclass hold only constants.
  let general: ValueTest.General
  let site: Site

  @usableFromInline
  init(_ general: ValueTest.General, site: Site) {
    self.general = general
    self.site = site
  }

  /// Takes the value owned, so that a fused closure's slow path is a tail
  /// call and its fast path needs no stack frame.
  @usableFromInline @inline(never)
  final func callAsFunction(_ value: consuming FilterValue) throws(PredicateEvaluationError) -> Bool {
    let value = value
    return try site.run { () throws(ValueFault) in try general.run(value) }
  }
}

/// Everything a fused closure built in the resolver's module reads: the
/// reader, the constant in the form its fast path compares, and (inherited)
/// the general test. One allocation per comparison, and the closure's only
/// capture.
@usableFromInline
final class FusedTest<Reader: KeyReader, Constant: Sendable>: GeneralTest, @unchecked Sendable {
  // Unchecked, restated for the subclass: it adds only constants (`let`s of
  // Sendable types: the reader and the constant), as its base holds.
  @usableFromInline let constant: Constant
  @usableFromInline let reader: Reader

  @inlinable
  init(_ reader: Reader, _ constant: Constant, _ general: ValueTest.General, _ site: Site) {
    self.reader = reader
    self.constant = constant
    super.init(general, site: site)
  }

  /// The slow path: reads the value again and runs the general test. Out
  /// of line and given only the object, so that a fused closure tail-calls
  /// it and its fast path needs no stack frame.
  @inlinable @inline(never)
  final func slow(_ object: Reader.Object) throws(PredicateEvaluationError) -> Bool {
    try self(reader.read(object))
  }
}
