/// Builds the closure of a comparison whose left side is a key read and
/// whose right side is constant: the read and the test in one closure, with
/// a switch on the value for the common shapes, and any other value sent to
/// the general test, so the semantics are the general test's.
///
/// It is inlinable, and generic over how the key is read, so that a
/// resolver that describes its reads as a ``KeyReader`` (instead of a
/// closure) gets closures built in its own module, specialised for its
/// object type, with the read inlined: no call through a reader closure and
/// no copy of the value per evaluation. A key whose resolver gave a closure
/// gets the same closures around a ``ClosureKeyReader``: this is the one
/// definition of the fused shortcuts.
@usableFromInline
enum FusedComparison {
  /// Always inlined into the resolver's hook: a specialised copy called from
  /// there would take the object directly and need a reabstraction thunk in
  /// front of every closure, a call more on every evaluation.
  ///
  /// Each closure captures one ``FusedTest``, which holds the reader, the
  /// constant and the general test: a closure whose only capture is one
  /// reference uses it as its context, so it needs no box of its own when
  /// compiled. A throwing closure is still called through a forwarding
  /// thunk; the ``Probe`` set beside the test (the same shortcut, without
  /// the slow path) is not, and needs no stack frame either.
  @inlinable @inline(__always)
  static func make<Reader: KeyReader>(
    _ reader: Reader, _ fast: ValueTest.Fast, _ general: ValueTest.General, _ site: Site,
    probe: inout Probe<Reader.Object>?
  ) -> Test<Reader.Object> {
    switch fast {
    case .integer(let operation, let constant):
      // Doubles take the shortcut too when the constant converts exactly.
      let box = FusedTest(reader, IntegerConstant(constant), general, site)
      switch operation {
      case .equal:
        probe = { object in
          let value = box.reader.read(object)
          if case .int(let int) = value { return int == box.constant.value }
          if box.constant.exact, case .double(let double) = value { return double == box.constant.real }
          return nil
        }
        return { object, _ throws(PredicateEvaluationError) in
          let value = box.reader.read(object)
          if case .int(let int) = value { return int == box.constant.value }
          if box.constant.exact, case .double(let double) = value { return double == box.constant.real }
          return try box.slow(object)
        }
      case .notEqual:
        probe = { object in
          let value = box.reader.read(object)
          if case .int(let int) = value { return int != box.constant.value }
          if box.constant.exact, case .double(let double) = value { return double != box.constant.real }
          return nil
        }
        return { object, _ throws(PredicateEvaluationError) in
          let value = box.reader.read(object)
          if case .int(let int) = value { return int != box.constant.value }
          if box.constant.exact, case .double(let double) = value { return double != box.constant.real }
          return try box.slow(object)
        }
      case .less:
        probe = { object in
          let value = box.reader.read(object)
          if case .int(let int) = value { return int < box.constant.value }
          if box.constant.exact, case .double(let double) = value { return double < box.constant.real }
          return nil
        }
        return { object, _ throws(PredicateEvaluationError) in
          let value = box.reader.read(object)
          if case .int(let int) = value { return int < box.constant.value }
          if box.constant.exact, case .double(let double) = value { return double < box.constant.real }
          return try box.slow(object)
        }
      case .lessOrEqual:
        probe = { object in
          let value = box.reader.read(object)
          if case .int(let int) = value { return int <= box.constant.value }
          if box.constant.exact, case .double(let double) = value { return double <= box.constant.real }
          return nil
        }
        return { object, _ throws(PredicateEvaluationError) in
          let value = box.reader.read(object)
          if case .int(let int) = value { return int <= box.constant.value }
          if box.constant.exact, case .double(let double) = value { return double <= box.constant.real }
          return try box.slow(object)
        }
      case .greater:
        probe = { object in
          let value = box.reader.read(object)
          if case .int(let int) = value { return int > box.constant.value }
          if box.constant.exact, case .double(let double) = value { return double > box.constant.real }
          return nil
        }
        return { object, _ throws(PredicateEvaluationError) in
          let value = box.reader.read(object)
          if case .int(let int) = value { return int > box.constant.value }
          if box.constant.exact, case .double(let double) = value { return double > box.constant.real }
          return try box.slow(object)
        }
      default:
        probe = { object in
          let value = box.reader.read(object)
          if case .int(let int) = value { return int >= box.constant.value }
          if box.constant.exact, case .double(let double) = value { return double >= box.constant.real }
          return nil
        }
        return { object, _ throws(PredicateEvaluationError) in
          let value = box.reader.read(object)
          if case .int(let int) = value { return int >= box.constant.value }
          if box.constant.exact, case .double(let double) = value { return double >= box.constant.real }
          return try box.slow(object)
        }
      }
    case .integerRange(let lower, let upper):
      let box = FusedTest(reader, IntegerBounds(lower, upper), general, site)
      probe = { object in
        let value = box.reader.read(object)
        if case .int(let int) = value { return box.constant.lower <= int && int <= box.constant.upper }
        if box.constant.exact, case .double(let double) = value {
          return box.constant.low <= double && double <= box.constant.high
        }
        return nil
      }
      return { object, _ throws(PredicateEvaluationError) in
        let value = box.reader.read(object)
        if case .int(let int) = value { return box.constant.lower <= int && int <= box.constant.upper }
        if box.constant.exact, case .double(let double) = value {
          return box.constant.low <= double && double <= box.constant.high
        }
        return try box.slow(object)
      }
    case .text(let text, let negated):
      let box = FusedTest(reader, TextConstant(text: text, negated: negated), general, site)
      probe = { object in
        let value = box.reader.read(object)
        if case .string(let string) = value { return box.constant.text.matches(string) != box.constant.negated }
        return nil
      }
      return { object, _ throws(PredicateEvaluationError) in
        let value = box.reader.read(object)
        if case .string(let string) = value { return box.constant.text.matches(string) != box.constant.negated }
        return try box.slow(object)
      }
    case .real(let operation, let constant):
      let box = FusedTest(reader, constant, general, site)
      switch operation {
      case .equal:
        probe = { object in
          let value = box.reader.read(object)
          if case .double(let double) = value { return double == box.constant }
          return nil
        }
        return { object, _ throws(PredicateEvaluationError) in
          let value = box.reader.read(object)
          if case .double(let double) = value { return double == box.constant }
          return try box.slow(object)
        }
      case .notEqual:
        probe = { object in
          let value = box.reader.read(object)
          if case .double(let double) = value { return double != box.constant }
          return nil
        }
        return { object, _ throws(PredicateEvaluationError) in
          let value = box.reader.read(object)
          if case .double(let double) = value { return double != box.constant }
          return try box.slow(object)
        }
      case .less:
        probe = { object in
          let value = box.reader.read(object)
          if case .double(let double) = value { return double < box.constant }
          return nil
        }
        return { object, _ throws(PredicateEvaluationError) in
          let value = box.reader.read(object)
          if case .double(let double) = value { return double < box.constant }
          return try box.slow(object)
        }
      case .lessOrEqual:
        probe = { object in
          let value = box.reader.read(object)
          if case .double(let double) = value { return double <= box.constant }
          return nil
        }
        return { object, _ throws(PredicateEvaluationError) in
          let value = box.reader.read(object)
          if case .double(let double) = value { return double <= box.constant }
          return try box.slow(object)
        }
      case .greater:
        probe = { object in
          let value = box.reader.read(object)
          if case .double(let double) = value { return double > box.constant }
          return nil
        }
        return { object, _ throws(PredicateEvaluationError) in
          let value = box.reader.read(object)
          if case .double(let double) = value { return double > box.constant }
          return try box.slow(object)
        }
      default:
        probe = { object in
          let value = box.reader.read(object)
          if case .double(let double) = value { return double >= box.constant }
          return nil
        }
        return { object, _ throws(PredicateEvaluationError) in
          let value = box.reader.read(object)
          if case .double(let double) = value { return double >= box.constant }
          return try box.slow(object)
        }
      }
    case .boolean(let constant, let negated):
      // `(bool == constant) != negated`, as one comparison.
      let box = FusedTest(reader, constant != negated, general, site)
      probe = { object in
        let value = box.reader.read(object)
        if case .bool(let bool) = value { return bool == box.constant }
        return nil
      }
      return { object, _ throws(PredicateEvaluationError) in
        let value = box.reader.read(object)
        if case .bool(let bool) = value { return bool == box.constant }
        return try box.slow(object)
      }
    case .textList(let strings):
      let box = FusedTest(reader, strings, general, site)
      probe = { object in
        let value = box.reader.read(object)
        if case .string(let string) = value { return box.constant.contains(string) }
        return nil
      }
      return { object, _ throws(PredicateEvaluationError) in
        let value = box.reader.read(object)
        if case .string(let string) = value { return box.constant.contains(string) }
        return try box.slow(object)
      }
    case .like(let pattern):
      let box = FusedTest(reader, pattern, general, site)
      probe = { object in
        let value = box.reader.read(object)
        if case .string(let string) = value { return box.constant.matches(string) }
        return nil
      }
      return { object, _ throws(PredicateEvaluationError) in
        let value = box.reader.read(object)
        if case .string(let string) = value { return box.constant.matches(string) }
        return try box.slow(object)
      }
    case .none:
      let box = FusedTest(reader, (), general, site)
      return { object, _ throws(PredicateEvaluationError) in
        try box(box.reader.read(object))
      }
    }
  }
}

/// Builds a fused comparison for a key: what ``ResolvedKey/init(consuming:type:entity:reader:)``
/// stores, made in the resolver's module.
@usableFromInline
typealias FuseHook<Object> = @Sendable (ValueTest.Fast, ValueTest.General, Site, inout Probe<Object>?) -> Test<Object>
