/// Builds the closure of a comparison whose left side is a key read and
/// whose right side is constant: the read and the test in one closure, with
/// a switch on the value for the common shapes, and any other value sent to
/// the general test, so the semantics are the general test's.
///
/// It is inlinable, and generic over how the key is read, so that a
/// resolver that describes its reads as a ``KeyReader`` (instead of a
/// closure) gets closures built in its own module, specialised for its
/// object type, with the read inlined: no call through a reader closure and
/// no copy of the value per evaluation. `PredicateCompiler.fuse` holds the
/// same closures over a reader closure, for resolvers that give closures;
/// the two are kept in step.
@usableFromInline
enum FusedComparison {
  /// Always inlined into the resolver's hook: a specialised copy called from
  /// there would take the object directly and need a reabstraction thunk in
  /// front of every closure (about 13 instructions per evaluation).
  @inlinable @inline(__always)
  static func make<Reader: KeyReader>(
    _ reader: Reader, _ fast: ValueTest.Fast, _ general: GeneralTest
  ) -> Test<Reader.Object> {
    switch fast {
    case .integer(let operation, let constant):
      // Doubles take the shortcut too when the constant converts exactly.
      let real = Double(constant)
      let exact = constant.magnitude <= 1 << 53
      switch operation {
      case .equal:
        return { object, _ throws(PredicateEvaluationError) in
          let value = reader.read(object)
          if case .int(let int) = value { return int == constant }
          if exact, case .double(let double) = value { return double == real }
          return try general(value)
        }
      case .notEqual:
        return { object, _ throws(PredicateEvaluationError) in
          let value = reader.read(object)
          if case .int(let int) = value { return int != constant }
          if exact, case .double(let double) = value { return double != real }
          return try general(value)
        }
      case .less:
        return { object, _ throws(PredicateEvaluationError) in
          let value = reader.read(object)
          if case .int(let int) = value { return int < constant }
          if exact, case .double(let double) = value { return double < real }
          return try general(value)
        }
      case .lessOrEqual:
        return { object, _ throws(PredicateEvaluationError) in
          let value = reader.read(object)
          if case .int(let int) = value { return int <= constant }
          if exact, case .double(let double) = value { return double <= real }
          return try general(value)
        }
      case .greater:
        return { object, _ throws(PredicateEvaluationError) in
          let value = reader.read(object)
          if case .int(let int) = value { return int > constant }
          if exact, case .double(let double) = value { return double > real }
          return try general(value)
        }
      default:
        return { object, _ throws(PredicateEvaluationError) in
          let value = reader.read(object)
          if case .int(let int) = value { return int >= constant }
          if exact, case .double(let double) = value { return double >= real }
          return try general(value)
        }
      }
    case .integerRange(let lower, let upper):
      let (low, high) = (Double(lower), Double(upper))
      let exact = lower.magnitude <= 1 << 53 && upper.magnitude <= 1 << 53
      return { object, _ throws(PredicateEvaluationError) in
        let value = reader.read(object)
        if case .int(let int) = value { return lower <= int && int <= upper }
        if exact, case .double(let double) = value { return low <= double && double <= high }
        return try general(value)
      }
    case .text(let text, let negated):
      return { object, _ throws(PredicateEvaluationError) in
        let value = reader.read(object)
        if case .string(let string) = value { return text.matches(string) != negated }
        return try general(value)
      }
    case .real(let operation, let constant):
      switch operation {
      case .equal:
        return { object, _ throws(PredicateEvaluationError) in
          let value = reader.read(object)
          if case .double(let double) = value { return double == constant }
          return try general(value)
        }
      case .notEqual:
        return { object, _ throws(PredicateEvaluationError) in
          let value = reader.read(object)
          if case .double(let double) = value { return double != constant }
          return try general(value)
        }
      case .less:
        return { object, _ throws(PredicateEvaluationError) in
          let value = reader.read(object)
          if case .double(let double) = value { return double < constant }
          return try general(value)
        }
      case .lessOrEqual:
        return { object, _ throws(PredicateEvaluationError) in
          let value = reader.read(object)
          if case .double(let double) = value { return double <= constant }
          return try general(value)
        }
      case .greater:
        return { object, _ throws(PredicateEvaluationError) in
          let value = reader.read(object)
          if case .double(let double) = value { return double > constant }
          return try general(value)
        }
      default:
        return { object, _ throws(PredicateEvaluationError) in
          let value = reader.read(object)
          if case .double(let double) = value { return double >= constant }
          return try general(value)
        }
      }
    case .boolean(let constant, let negated):
      return { object, _ throws(PredicateEvaluationError) in
        let value = reader.read(object)
        if case .bool(let bool) = value { return (bool == constant) != negated }
        return try general(value)
      }
    case .textList(let strings):
      return { object, _ throws(PredicateEvaluationError) in
        let value = reader.read(object)
        if case .string(let string) = value { return strings.contains(string) }
        return try general(value)
      }
    case .like(let pattern):
      return { object, _ throws(PredicateEvaluationError) in
        let value = reader.read(object)
        if case .string(let string) = value { return pattern.matches(string) }
        return try general(value)
      }
    case .none:
      return { object, _ throws(PredicateEvaluationError) in
        let value = reader.read(object)
        return try general(value)
      }
    }
  }
}

/// The general test of a fused comparison with its site, behind one
/// reference: a fused closure captures the read, its constant and this, so
/// its fast path loads three words instead of the whole slow path's
/// context, and the error handling stays out of line. Not generic, so that
/// making one needs no generic metadata (a run-time lookup of a few hundred
/// instructions from unspecialised code).
@usableFromInline
final class GeneralTest: Sendable {
  let run: @Sendable (FilterValue) throws(ValueFault) -> Bool
  let site: Site

  init(_ run: @escaping @Sendable (FilterValue) throws(ValueFault) -> Bool, site: Site) {
    self.run = run
    self.site = site
  }

  @usableFromInline @inline(never)
  func callAsFunction(_ value: FilterValue) throws(PredicateEvaluationError) -> Bool {
    try site.run { () throws(ValueFault) in try run(value) }
  }
}

/// Builds a fused comparison for a key: what ``ResolvedKey/init(consuming:type:entity:reader:)``
/// stores, made in the resolver's module.
@usableFromInline
typealias FuseHook<Object> = @Sendable (ValueTest.Fast, GeneralTest) -> Test<Object>
